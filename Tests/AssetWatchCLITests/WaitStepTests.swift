import AssetWatchTestKit
import Foundation
import RemoteAssets
import RemoteAssetsTestKit
import Testing

@testable import AssetWatchCLI

/// `wait`'s decisions, as a pure function of one look at the engine: which step ends the wait
/// and the exit status it ends with. The snapshots come from a real engine (bundled assets, no
/// network); each test sets the versions the rule is about.
@Suite struct WaitStepTests {
  static let now = Date(timeIntervalSince1970: 2_000_000_000)
  static let later = now.addingTimeInterval(60)

  /// A real snapshot of two bundled assets, `a` and `b`, with versions and targets set.
  static func snapshot(
    versions: [String: String], targets: [String: String], manifestCheckedAt: Date? = nil,
    manifestError: String? = nil
  ) async throws -> EngineSnapshot {
    try await withEngine([
      AssetDefinition(id: "a", remote: nil, bundled: .bytes(Data("1".utf8)), format: .text),
      AssetDefinition(id: "b", remote: nil, bundled: .bytes(Data("2".utf8)), format: .text),
    ]) { engine, _ in
      var snapshot = await engine.snapshot()
      for index in snapshot.assets.indices {
        let id = snapshot.assets[index].id
        snapshot.assets[index].version = versions[id]
        snapshot.assets[index].targetVersion = targets[id]
      }
      snapshot.info.manifestCheckedAt = manifestCheckedAt
      snapshot.info.manifestError = manifestError
      snapshot.at = now
      return snapshot
    }
  }

  static func progress(
    _ snapshot: EngineSnapshot, ids: [String] = [], manifestSince: Date? = nil
  ) -> RolloutProgress {
    RolloutProgress(snapshot: snapshot, ids: ids, manifestCheckedSince: manifestSince)
  }

  @Test func onTargetConvergesEvenWhenASignalAndTheDeadlineArriveInTheSameLook() async throws {
    let snapshot = try await Self.snapshot(
      versions: ["a": "2", "b": "7"], targets: ["a": "2", "b": "7"])
    let step = WaitStep.decide(
      Self.progress(snapshot), interruptedBy: SIGINT, now: Self.later, deadline: Self.now)
    #expect(step == .converged)
    #expect(step.exitStatus == 0)
  }

  @Test func behindTargetKeepsWaitingUntilTheDeadline() async throws {
    let snapshot = try await Self.snapshot(
      versions: ["a": "1", "b": "7"], targets: ["a": "2", "b": "7"])
    let progress = Self.progress(snapshot)
    #expect(
      WaitStep.decide(progress, interruptedBy: nil, now: Self.now, deadline: Self.later)
        == .keepWaiting)
    let late = WaitStep.decide(progress, interruptedBy: nil, now: Self.later, deadline: Self.later)
    #expect(late == .timedOut)
    #expect(late.exitStatus == 1)
    #expect(WaitStep.keepWaiting.exitStatus == nil)
  }

  @Test func aSignalEndsTheWaitWith128PlusItsNumber() async throws {
    let snapshot = try await Self.snapshot(versions: ["a": "1"], targets: ["a": "2"])
    let step = WaitStep.decide(
      Self.progress(snapshot), interruptedBy: SIGTERM, now: Self.now, deadline: Self.later)
    #expect(step == .interrupted(SIGTERM))
    #expect(step.exitStatus == 143)
  }

  @Test func unknownIDsEndTheWaitWithStatus2OnceTheManifestHasHadAnOutcome() async throws {
    let healthy = try await Self.snapshot(
      versions: ["a": "2"], targets: ["a": "2"], manifestCheckedAt: Self.now)
    let step = WaitStep.decide(
      Self.progress(healthy, ids: ["a", "nope", "gone"], manifestSince: Self.now),
      interruptedBy: nil, now: Self.now, deadline: Self.later)
    #expect(step == .unknownAssets(["nope", "gone"]))
    #expect(step.exitStatus == 2)
    // A manifest that failed is an outcome too: the answer does not depend on its luck.
    let failing = try await Self.snapshot(
      versions: ["a": "2"], targets: ["a": "2"], manifestError: "HTTP 503")
    #expect(
      WaitStep.decide(
        Self.progress(failing, ids: ["a", "nope"], manifestSince: Self.now),
        interruptedBy: nil, now: Self.now, deadline: Self.later) == .unknownAssets(["nope"]))
    // Not checked yet: it may still add them.
    let pending = try await Self.snapshot(versions: ["a": "2"], targets: ["a": "2"])
    #expect(
      WaitStep.decide(
        Self.progress(pending, ids: ["a", "nope"], manifestSince: Self.now),
        interruptedBy: nil, now: Self.now, deadline: Self.later) == .keepWaiting)
    // Without a manifest the config is all there is: decided at the first look.
    #expect(
      WaitStep.decide(
        Self.progress(pending, ids: ["nope"]), interruptedBy: nil, now: Self.now,
        deadline: Self.later) == .unknownAssets(["nope"]))
  }

  @Test func aManifestNotCheckedSinceTheStartIsNotConverged() async throws {
    let stale = try await Self.snapshot(
      versions: ["a": "2", "b": "7"], targets: ["a": "2", "b": "7"],
      manifestCheckedAt: Self.now.addingTimeInterval(-1))
    #expect(
      WaitStep.decide(
        Self.progress(stale, manifestSince: Self.now), interruptedBy: nil, now: Self.now,
        deadline: Self.later) == .keepWaiting)
  }
}
