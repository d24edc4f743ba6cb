import AssetModel
import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Probation, confirmation and rejection through the engine, against a manifest on a loopback
/// origin: a new version serves on probation until confirmed; a rejected one goes back, is
/// recorded, and is neither fetched nor committed again until the target changes.
@Suite struct ProbationTests {
  typealias S = StagedRolloutTests

  static func withProbationEngine<T>(
    origin: LoopbackOrigin, cache: URL, clock: any EngineClock = SystemClock(),
    policy: ProbationPolicy = ProbationPolicy(enabled: true, confirmAfter: nil, crashes: 2),
    _ body: (AssetEngine) async throws -> T
  ) async throws -> T {
    try await S.withInstance(
      "canary", origin: origin, cache: cache, clock: clock, probation: policy, body)
  }

  @Test func aNewVersionIsOnProbationUntilConfirmedAndARejectedOneIsNotFetchedAgain()
    async throws
  {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await S.publish(origin, target: S.v1, version: "v1", rollout: nil)
        try await Self.withProbationEngine(origin: origin, cache: dir.cache) { engine in
          #expect(await engine.refresh("flags").isUpdated)
          #expect(await engine.status("flags")?.probation?.version == "v1")
          try await engine.confirm("flags")
          #expect(await engine.status("flags")?.probation == nil)

          await S.publish(origin, target: S.v2, version: "v2", rollout: nil)
          #expect(await engine.refresh("flags").isUpdated)
          #expect(await engine.status("flags")?.probation?.version == "v2")
          try await engine.reject("flags", reason: "checkout fails\u{1b}[2J")
          let status = try #require(await engine.status("flags"))
          #expect(status.version == "v1")
          #expect(try await engine.data("flags") == S.v1)
          #expect(status.rejected?.version == "v2")
          #expect(status.rejected?.reason == "checkout fails[2J", "sanitized")
          #expect(status.probation == nil)
          // The target still names v2: nothing is fetched, and that is no failure.
          let before = await origin.requestCount(path: "/v2.json")
          #expect(await engine.refresh("flags") == .notModified)
          #expect(await origin.requestCount(path: "/v2.json") == before)
          #expect(try await engine.data("flags") == S.v1)
          #expect(await engine.status("flags")?.lastError == nil)
        }
        // A restart keeps the rejection (the ledger in the cache folder).
        try await Self.withProbationEngine(origin: origin, cache: dir.cache) { engine in
          #expect(await engine.status("flags")?.rejected?.version == "v2")
          #expect(await engine.refresh("flags") == .notModified)
          let served66 = try await engine.data("flags")
          #expect(served66 == S.v1)
          // The target moves on: v3 is fetched, and the rejection of v2 no longer stands.
          await S.publish(origin, target: S.v3, version: "v3", rollout: nil)
          #expect(await engine.refresh("flags").isUpdated)
          let served70 = try await engine.data("flags")
          #expect(served70 == S.v3)
          #expect(await engine.status("flags")?.rejected == nil)
        }
      }
    }
  }

  /// An asset whose target names no hash: after a rejection, the server still serving those
  /// bytes is downloaded and found out, but never committed.
  @Test func rejectedBytesWithoutAHashInTheTargetAreNeverCommitted() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await origin.setResource("/flags.json", body: S.v1, contentType: "application/json")
        let asset = AssetDefinition(
          id: "flags", remote: URL(string: "\(origin.baseURL)/flags.json"), format: .json,
          refresh: .manual, timeout: 30)
        try await withEngine([asset], cache: dir.cache) { engine in
          #expect(await engine.refresh("flags").isUpdated)
          await origin.setResource("/flags.json", body: S.v2, contentType: "application/json")
          #expect(await engine.refresh("flags").isUpdated)
          try await engine.reject("flags", reason: "bad")
          #expect(try await engine.data("flags") == S.v1)
          let outcome = await engine.refresh("flags")
          #expect(outcome == .notModified, "\(outcome)")
          #expect(try await engine.data("flags") == S.v1)
          let last = await engine.status("flags")?.history.first?.detail ?? ""
          #expect(last.contains("still serves the rejected"), "\(last)")
        }
      }
    }
  }

  /// With no previous generation, a rejection goes back to the bundled copy.
  @Test func aRejectionWithNoPreviousCopyGoesBackToTheBundledOne() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await S.publish(origin, target: S.v2, version: "v2", rollout: nil)
        let bundled = try dir.file("bundled.json", Data(#"{"v":0}"#.utf8))
        let asset = AssetDefinition(
          id: "flags", remote: URL(string: "\(origin.baseURL)/v1.json"),
          bundled: .file(bundled), format: .json, refresh: .manual, timeout: 30)
        try await withEngine(
          [asset], cache: dir.cache, manifest: URL(string: "\(origin.baseURL)/manifest.json")
        ) { engine in
          #expect(await engine.refresh("flags").isUpdated)
          try await engine.reject("flags", reason: "bad")
          let status = try #require(await engine.status("flags"))
          #expect(status.source == .bundled)
          #expect(status.rejected?.version == "v2")
          let served = try await engine.data("flags")
          #expect(served == Data(#"{"v":0}"#.utf8))
          #expect(await engine.refresh("flags") == .notModified, "v2 is not fetched again")
        }
      }
    }
  }

  @Test func probationEndsByItselfAfterConfirmAfter() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await S.publish(origin, target: S.v1, version: "v1", rollout: nil)
        let clock = ManualClock(now: Date())
        let policy = ProbationPolicy(enabled: true, confirmAfter: 600, crashes: 2)
        try await Self.withProbationEngine(
          origin: origin, cache: dir.cache, clock: clock, policy: policy
        ) { engine in
          let start = clock.now()
          #expect(await engine.refresh("flags").isUpdated)
          #expect(await engine.status("flags")?.probation?.until == start.addingTimeInterval(600))
          // A second before confirmAfter, a scheduler tick leaves it on probation.
          clock.advance(by: 599)
          _ = await engine.tick()
          #expect(await engine.status("flags")?.probation?.version == "v1", "still on probation")
          let events = await engine.events()
          // Two seconds later (past the deadline), the scheduler ends it by itself.
          clock.advance(by: 2)
          await engine.startAutoRefresh()
          let confirmed = await firstEvent(in: events, timeout: .seconds(30)) { event in
            if case .assetChanged(let status) = event {
              return status.id == "flags" && status.probation == nil
            }
            return false
          }
          #expect(confirmed != nil)
        }
      }
    }
  }

  @Test func nothingDownloadedOrNothingToGoBackToCannotBeRejected() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await S.publish(origin, target: S.v1, version: "v1", rollout: nil)
        try await Self.withProbationEngine(origin: origin, cache: dir.cache) { engine in
          await #expect(throws: CommandError.self) { try await engine.reject("flags", reason: "x") }
          #expect(await engine.refresh("flags").isUpdated)
          // v1 is the only copy, and there is no bundled one.
          await #expect(throws: CommandError.self) { try await engine.reject("flags", reason: "x") }
          await #expect(throws: CommandError.self) { try await engine.confirm("nosuch") }
        }
      }
    }
  }
}
