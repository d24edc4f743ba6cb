import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// The queue of engine events while a confirm dialog is open: bounded by the assets and the log,
/// and applied as if every event had been.
@Suite struct ReducerPendingEventsTests {
  static let afterGuard = Fixtures.later(ConfirmDialog.guardInterval + 0.001)

  /// A small deterministic generator (an LCG), so the storm is the same on every run.
  struct Generator {
    var seed: UInt64
    mutating func next(_ bound: Int) -> Int {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((seed >> 33) % UInt64(bound))
    }
  }

  static func asset(_ number: Int) -> AssetStatus {
    Fixtures.flags.with {
      $0.id = "asset-\(number)"
      $0.history = []
    }
  }

  /// `count` engine events about `assets` assets: statuses, progress, engine info, log lines and
  /// (when `snapshots`) an occasional snapshot of some of them.
  static func storm(count: Int, assets: Int, snapshots: Bool) -> [EngineEvent] {
    var random = Generator(seed: 42)
    let activities: [AssetActivity] = [
      .idle, .checking, .validating, .downloading(Fixtures.downloadProgress),
    ]
    return (0..<count).map { n in
      let id = random.next(assets)
      switch random.next(snapshots ? 101 : 100) {
      case 0..<50:
        let activity = activities[random.next(activities.count)]
        return .assetChanged(
          asset(id).with {
            $0.version = "v\(random.next(4))"
            $0.activity = activity
          })
      case 50..<80:
        let progress = TransferProgress(
          receivedBytes: Int64(n), expectedBytes: 50 * Fixtures.mib, bytesPerSecond: 1000)
        return .progress(id: "asset-\(id)", progress)
      case 80..<85:
        var info = Fixtures.info
        info.manifestVersion = "m\(n)"
        return .engineChanged(info)
      case 85..<100:
        return .log(
          EngineLogEntry(at: Fixtures.now, assetID: "asset-\(id)", level: .info, message: "\(n)"))
      default:
        let kept = (0..<assets).filter { _ in random.next(3) > 0 }.map { asset($0) }
        return .snapshot(Fixtures.snapshot(kept))
      }
    }
  }

  /// The starting state: 7 of the 10 assets, "asset-0" selected.
  static func start() -> DashboardState {
    var state = Fixtures.loadedState((0..<7).map { asset($0) })
    while state.selectedID != "asset-0" { Fixtures.press([.down], &state) }
    return state
  }

  /// What the queue must reproduce: everything the events can change.
  static func expectSameOutcome(_ frozen: DashboardState, _ live: DashboardState) {
    #expect(frozen.assets == live.assets)
    #expect(frozen.info == live.info)
    #expect(frozen.log == live.log)
    #expect(frozen.changedAt == live.changedAt)
    #expect(frozen.rows(at: afterGuard) == live.rows(at: afterGuard))
  }

  @Test(arguments: [false, true])
  func aStormWhileTheDialogIsOpenKeepsABoundedQueueAndAppliesLikeEveryEvent(snapshots: Bool) {
    let assets = 10
    let events = Self.storm(count: 100_000, assets: assets, snapshots: snapshots)
    var frozen = Self.start()
    var live = frozen
    Fixtures.press("d", &frozen)
    #expect(frozen.isFrozen)
    let bound = assets + frozen.log.capacity + 2
    var largest = 0
    for event in events {
      Fixtures.send(event, &frozen)
      largest = max(largest, frozen.pendingEvents.count)
    }
    #expect(largest <= bound)
    #expect(frozen.asset("asset-0") == Self.asset(0))  // still frozen
    Fixtures.press("n", &frozen, at: Self.afterGuard)
    #expect(frozen.pendingEvents.isEmpty)

    // The same events applied one by one with no dialog, at the time the dialog closed.
    _ = DashboardReducer.reduce(&live, events.map { .engine($0) }, now: Self.afterGuard)
    Self.expectSameOutcome(frozen, live)
  }

  @Test func logLinesQueuedBeforeASnapshotAreKept() {
    var frozen = Self.start()
    var live = frozen
    Fixtures.press("d", &frozen)
    let entry = EngineLogEntry(at: Fixtures.now, assetID: nil, level: .info, message: "before")
    let events: [EngineEvent] = [
      .assetChanged(Self.asset(1).with { $0.version = "v9" }),
      .log(entry),
      .snapshot(Fixtures.snapshot((0..<3).map { Self.asset($0) })),
    ]
    for event in events { Fixtures.send(event, &frozen) }
    Fixtures.press("n", &frozen, at: Self.afterGuard)
    _ = DashboardReducer.reduce(&live, events.map { .engine($0) }, now: Self.afterGuard)
    #expect(frozen.log.entries.last == entry)
    Self.expectSameOutcome(frozen, live)
  }
}
