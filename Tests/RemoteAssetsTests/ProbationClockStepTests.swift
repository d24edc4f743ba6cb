import AssetModel
import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Probation's `confirmAfter` through the engine with a manual clock whose wall clock is stepped
/// during probation: it lasts elapsed time, whatever the wall clock did; across a restart the
/// persisted wall-clock deadline decides. A scripted fetcher, no origin; ticks are called, not
/// waited for.
@Suite struct ProbationClockStepTests {
  static let policy = ProbationPolicy(enabled: true, confirmAfter: 600, crashes: 2)

  /// An engine over `cache` with probation on and one scripted asset, "s".
  static func withEngine(
    cache: URL, clock: ManualClock, _ body: (AssetEngine) async throws -> Void
  ) async throws {
    let fetcher = ScriptedFetcher()
    fetcher.set("[1]", etag: "\"1\"")
    let asset = AssetDefinition(
      id: "s", remote: URL(string: "scripted://s"), format: .json, refresh: .manual)
    try await RemoteAssetsTestKit.withEngine(
      [asset], cache: cache, clock: clock, fetchers: [fetcher],
      configure: { $0.probation = Self.policy }, body)
  }

  @Test func aWallClockSteppedBackDoesNotDelayTheConfirmation() async throws {
    try await withTemporaryDirectory { dir in
      let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
      try await Self.withEngine(cache: dir.cache, clock: clock) { engine in
        #expect(await engine.refresh("s").isUpdated)
        #expect(await engine.status("s")?.probation != nil)
        clock.stepWallClock(by: -86400)
        clock.advance(by: 599)
        await engine.tick()
        let moved = try #require(await engine.status("s")?.probation)
        #expect(moved.until == clock.now().addingTimeInterval(1), "the deadline shown moved back")
        clock.advance(by: 1)
        await engine.tick()
        #expect(await engine.status("s")?.probation == nil, "ten minutes elapsed: confirmed")
      }
    }
  }

  @Test func aWallClockSteppedForwardDoesNotConfirmEarly() async throws {
    try await withTemporaryDirectory { dir in
      let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
      try await Self.withEngine(cache: dir.cache, clock: clock) { engine in
        #expect(await engine.refresh("s").isUpdated)
        clock.advance(by: 100)
        clock.stepWallClock(by: 86400)
        await engine.tick()
        let moved = try #require(await engine.status("s")?.probation, "still on probation")
        #expect(moved.until == clock.now().addingTimeInterval(500))
        clock.advance(by: 499)
        await engine.tick()
        #expect(await engine.status("s")?.probation != nil)
        clock.advance(by: 1)
        await engine.tick()
        #expect(await engine.status("s")?.probation == nil)
      }
    }
  }

  /// Across a restart only the wall clock is known: the persisted deadline (moved with any step
  /// the last engine saw) decides, and what is left of it then runs in elapsed time.
  @Test func aRestartEndsProbationAtThePersistedWallDeadline() async throws {
    try await withTemporaryDirectory { dir in
      let start = Date(timeIntervalSince1970: 1_800_000_000)
      let first = ManualClock(now: start)
      try await Self.withEngine(cache: dir.cache, clock: first) { engine in
        #expect(await engine.refresh("s").isUpdated)
        // A step forward this engine sees: the deadline persisted moves with it.
        first.advance(by: 100)
        first.stepWallClock(by: 3600)
        await engine.tick()
        try await Self.waitForLedger(dir.cache, until: first.now().addingTimeInterval(500))
      }
      // A new process: 200 s of wall time later, elapsed time starting again.
      let second = ManualClock(now: first.now().addingTimeInterval(200))
      try await Self.withEngine(cache: dir.cache, clock: second) { engine in
        #expect(await engine.status("s")?.probation != nil)
        second.advance(by: 299)
        await engine.tick()
        #expect(await engine.status("s")?.probation != nil, "a second is left")
        second.advance(by: 1)
        await engine.tick()
        #expect(await engine.status("s")?.probation == nil)
      }
    }
  }

  /// The ledger's deadline for "s" once it reads `until` (the tick writes it in a task of its
  /// own); bounded by a count of yields, not by time.
  static func waitForLedger(_ cache: URL, until: Date) async throws {
    let url = cache.appendingPathComponent("rollouts.json")
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    for _ in 0..<100_000 {
      if let data = try? Data(contentsOf: url),
        let ledger = try? decoder.decode(RolloutLedger.self, from: data),
        ledger.assets["s"]?.probation?.until == until
      {
        return
      }
      await Task.yield()
    }
    Issue.record("the ledger never read \(until)")
  }
}
