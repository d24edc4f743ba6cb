import Foundation
import Testing

@testable import RemoteAssets

/// A scheduler tick through the whole core (``EngineCore/tick(at:followsTargets:)``): the one
/// place a wall-clock step reaches every deadline, the assets' next checks and the manifest's
/// alike. No engine, origin, disk or sleep.
@Suite struct EngineCoreTickTests {
  static let t0 = SchedulerCoreTests.t0

  /// A core with assets `a` (next check in 300 s) and `b` (none), whose manifest was checked
  /// at `t0` with the next check 300 s later.
  static func core() -> EngineCore {
    var core = EngineCore(backoff: Backoff(base: 2, cap: 900))
    core.records = SchedulerCoreTests.records([("a", t0 + 300), ("b", nil)])
    core.order = ["a", "b"]
    let due = core.manifestSchedule.startIfDue(at: t0)
    #expect(due, "never checked: due")
    _ = core.manifestSchedule.begin(
      TargetCoreFixture.configuration(), held: nil, shutDown: false, at: t0)
    _ = core.manifestSchedule.ended(
      .init(at: t0, check: .manifest), refreshSeconds: 300, backoff: core.backoff, random: 0)
    return core
  }

  @Test func aTickOnTimeStartsNothingEarly() {
    var core = Self.core()
    let (tick, manifestDue) = core.tick(at: Self.t0 + 100, followsTargets: true)
    #expect(!manifestDue)
    #expect(!tick.actions.contains(.checkManifest))
    #expect(tick.movedBack.isEmpty)
    #expect(core.records["a"]?.entry.nextAttemptAt == Self.t0 + 300)
  }

  @Test func aClockSteppedBackMovesTheAssetsAndMakesTheManifestDueInOneTick() {
    var core = Self.core()
    _ = core.tick(at: Self.t0 + 100, followsTargets: true)
    let back = Self.t0 - 86_400
    let (tick, manifestDue) = core.tick(at: back, followsTargets: true)
    #expect(manifestDue, "a day back: the manifest is due now, not in a day and 200 s")
    #expect(tick.actions.contains(.checkManifest))
    #expect(tick.movedBack == [.init(id: "a", next: Self.t0 + 300 - 86_500)])
    #expect(core.records["a"]?.entry.nextAttemptAt == Self.t0 + 300 - 86_500, "applied")
    #expect(tick.logs.count == 1)
    // The check started holds off the next until it ends.
    let (_, again) = core.tick(at: back + 1, followsTargets: true)
    #expect(!again)
  }

  @Test func aPausedOrTargetlessEngineStartsNoManifestCheckEvenAfterAStep() {
    var paused = Self.core()
    _ = paused.lifecycle.setPaused(true, at: Self.t0)
    _ = paused.tick(at: Self.t0 + 100, followsTargets: true)
    let (_, pausedDue) = paused.tick(at: Self.t0 - 86_400, followsTargets: true)
    #expect(!pausedDue)
    var targetless = Self.core()
    let (tick, due) = targetless.tick(at: Self.t0 + 400, followsTargets: false)
    #expect(!due && !tick.actions.contains(.checkManifest))
  }
}
