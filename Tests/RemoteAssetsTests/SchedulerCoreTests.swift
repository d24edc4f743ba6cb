import Foundation
import Testing

@testable import RemoteAssets

/// The scheduler core: a tick's work in order (a wall-clock step first, then the periodic work,
/// which a running look or write holds back), and the looks at the
/// assets' schedules (due, waiting for the manifest, first checks, moved back by a step). No
/// engine, origin, disk or sleep.
@Suite struct SchedulerCoreTests {
  static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

  /// A table of assets with these next checks (nil: none), checked every 300 s.
  static func records(_ schedule: [(id: String, next: Date?)]) -> RecordTable {
    var table = RecordTable()
    for (id, next) in schedule {
      let definition = AssetDefinition(
        id: id, remote: URL(string: "https://example.com/\(id)"), refresh: .every(300))
      var entry = CacheEntry(id: id, appVersion: "1")
      entry.nextAttemptAt = next
      table[id] = AssetRecord(definition: definition, entry: entry)
    }
    return table
  }

  // MARK: - Ticks

  /// The periodic work a tick at `now` starts, over no assets.
  static func actions(
    _ core: inout SchedulerCore, at now: Date, _ facts: SchedulerCore.Facts = .init()
  ) -> [SchedulerAction] {
    core.tick(at: now, facts, order: [], records: RecordTable()).actions
  }

  @Test func theFirstTickDoesEverythingDue() {
    var core = SchedulerCore()
    let tick = core.tick(
      at: Self.t0, .init(manifestDue: true, freshnessWaiting: true), order: [],
      records: RecordTable())
    #expect(tick.actions == [.reloadExternalChanges, .flushFreshness, .checkManifest, .scanAssets])
    #expect(tick.movedBack.isEmpty && tick.logs.isEmpty)
  }

  @Test func aLookOrAWriteStillRunningIsNotStartedAgain() {
    var core = SchedulerCore()
    let actions = Self.actions(
      &core, at: Self.t0,
      .init(freshnessWaiting: true, freshnessWriting: true, externalLooking: true))
    #expect(actions == [.scanAssets])
    core.scanned(.init(soonest: Self.t0 + 3600), at: Self.t0)
    // The look is due again one interval later, not at once.
    #expect(Self.actions(&core, at: Self.t0 + 0.5).isEmpty)
    #expect(Self.actions(&core, at: Self.t0 + 1) == [.reloadExternalChanges])
  }

  @Test func aPausedTickOnlyKeepsHouse() {
    var core = SchedulerCore()
    let actions = Self.actions(&core, at: Self.t0, .init(paused: true, manifestDue: true))
    #expect(actions == [.reloadExternalChanges])
    #expect(core.sleep(at: Self.t0, paused: true, manifestNext: Self.t0 + 0.1) == 1)
  }

  @Test func aClockSteppedBackMovesEveryCheckBackAndMakesEverythingDue() {
    var core = SchedulerCore()
    let records = Self.records([("a", Self.t0 + 300), ("b", nil)])
    _ = Self.actions(&core, at: Self.t0)
    core.scanned(.init(soonest: Self.t0 + 300), at: Self.t0)
    #expect(Self.actions(&core, at: Self.t0 + 5) == [.reloadExternalChanges])
    let stepped = core.tick(at: Self.t0 - 3600, .init(), order: ["a", "b"], records: records)
    #expect(stepped.movedBack == [.init(id: "a", next: Self.t0 - 3305)])
    #expect(
      stepped.logs == [
        EngineLogLine(
          level: .info,
          message:
            "the clock went back \(DurationText.format(3605)); the assets' next checks moved back with it"
        )
      ])
    #expect(stepped.actions == [.reloadExternalChanges, .scanAssets], "nothing waits out the step")
  }

  @Test func aClockReadALittleOutOfOrderIsNotAStep() {
    var core = SchedulerCore()
    let records = Self.records([("a", Self.t0 + 300)])
    _ = Self.actions(&core, at: Self.t0)
    let tick = core.tick(
      at: Self.t0 - SchedulerState.clockStepTolerance, .init(), order: ["a"], records: records)
    #expect(tick.movedBack.isEmpty && tick.logs.isEmpty)
  }

  @Test func theSleepRunsToTheSoonestCheckTheScanFound() {
    var core = SchedulerCore()
    _ = Self.actions(&core, at: Self.t0)
    core.scanned(.init(soonest: Self.t0 + 0.25), at: Self.t0)
    #expect(core.sleep(at: Self.t0, paused: false, manifestNext: nil) == 0.25)
    #expect(core.sleep(at: Self.t0, paused: false, manifestNext: Self.t0 + 0.125) == 0.125)
  }

  // MARK: - Scans

  @Test func aScanStartsTheDueAssetsAndFindsTheSoonestOther() {
    let records = Self.records([
      ("a", Self.t0 - 1), ("b", Self.t0 + 30), ("c", Self.t0), ("d", nil), ("e", Self.t0 + 10),
    ])
    let scan = SchedulerCore.scan(
      order: ["a", "b", "c", "d", "e"], records: records, inFlight: [], at: Self.t0,
      manifestPending: false)
    #expect(scan == .init(due: ["a", "c"], soonest: Self.t0 + 10, waiting: false))
  }

  @Test func aScanSkipsAssetsInFlightBlockedOrWithoutARemote() {
    var records = Self.records([("a", Self.t0), ("b", Self.t0), ("c", Self.t0), ("d", Self.t0)])
    records["b"]?.autoRefreshBlocked = true
    records["c"]?.definition.remote = nil
    let scan = SchedulerCore.scan(
      order: ["a", "b", "c", "d", "unknown"], records: records, inFlight: ["a"], at: Self.t0,
      manifestPending: false)
    #expect(scan == .init(due: ["d"], soonest: .distantFuture, waiting: false))
  }

  @Test func whileTheManifestIsCheckedOnlyLiveAssetsStart() {
    var records = Self.records([("a", Self.t0), ("live", Self.t0), ("later", Self.t0 + 60)])
    records["live"]?.definition.refresh = .live
    let scan = SchedulerCore.scan(
      order: ["a", "live", "later"], records: records, inFlight: [], at: Self.t0,
      manifestPending: true)
    #expect(scan == .init(due: ["live"], soonest: Self.t0 + 60, waiting: true))
    var core = SchedulerCore()
    _ = Self.actions(&core, at: Self.t0)
    core.scanned(scan, at: Self.t0)
    #expect(
      Self.actions(&core, at: Self.t0 + 0.5) == [.scanAssets],
      "the waiting asset is looked at again on the next tick")
  }

  // MARK: - Assets' schedules

  @Test func theFirstChecksAreDueNowOrOneIntervalAfterTheLastCheck() {
    var records = Self.records([
      ("never", nil), ("recent", nil), ("long-ago", nil), ("scheduled", Self.t0 + 99),
      ("manual", nil),
    ])
    records["recent"]?.entry.checkedAt = Self.t0 - 100
    records["long-ago"]?.entry.checkedAt = Self.t0 - 1000
    records["manual"]?.definition.refresh = .manual
    let checks = SchedulerCore.firstChecks(
      order: ["never", "recent", "long-ago", "scheduled", "manual"], records: records,
      at: Self.t0)
    #expect(
      checks == [
        .init(id: "never", next: Self.t0), .init(id: "recent", next: Self.t0 + 200),
        .init(id: "long-ago", next: Self.t0),
      ])
  }

  @Test func aStepMovesEveryScheduledCheckBackByItself() {
    let records = Self.records([("a", Self.t0 + 300), ("b", nil), ("c", Self.t0 - 5)])
    let moved = SchedulerCore.movedBack(by: 3600, order: ["a", "b", "c"], records: records)
    #expect(moved == [.init(id: "a", next: Self.t0 - 3300), .init(id: "c", next: Self.t0 - 3605)])
  }
}
