import AssetJSON
import AssetWatchTestKit
import Foundation
import Testing

@testable import TUFPublish

/// The guard's state read back from the signed target (pure): where a run starts, the evidence
/// round trip, a guarded step signed and verified, a person's update dropping the evidence.
@Suite struct GuardedTargetTests {
  let sha = String(repeating: "a", count: 64)
  let at = Date(timeIntervalSince1970: 1_800_000_000)

  func evidence(step: Int, verdict: String = "advance", sha256: String? = nil) -> GuardEvidence {
    GuardEvidence(
      sha256: sha256 ?? sha, started: at, steps: [1, 5, 25, 100], step: step, verdict: verdict,
      at: at, reason: "r")
  }

  func target(_ percent: Int?, _ evidence: GuardEvidence? = nil) -> GuardedTarget {
    GuardedTarget(path: "flags", sha256: sha, version: "3", percent: percent, evidence: evidence)
  }

  @Test func whereARunStarts() {
    #expect(target(nil).start == .notStaged)
    #expect(target(100).start == .notStaged)
    #expect(target(100, evidence(step: 100)).start == .complete(evidence(step: 100)))
    #expect(target(5).start == .start(5))
    #expect(target(5, evidence(step: 5)).start == .resume(evidence(step: 5)))
    // Changed by other means than the guard: a new rollout from there.
    #expect(target(25, evidence(step: 5)).start == .start(25))
    #expect(target(0).start == .halted("the rollout was halted by hand (percent 0)"))
    #expect(target(0, evidence(step: 0, verdict: "halt")).start == .halted("r"))
    guard case .startOver(let why) = target(25, evidence(step: 25, sha256: "b")).start else {
      Issue.record("other bytes must start over")
      return
    }
    #expect(why.contains("starting over from the first step"))
    var critical = target(5)
    critical.critical = true
    #expect(critical.start == .notStaged)
  }

  @Test func evidenceRoundTripsWithoutFloats() throws {
    var full = evidence(step: 25)
    full.canary = .init(instances: 3, reporting: 3, serving: 2, rejected: 1)
    full.control = .init(instances: 4, reporting: 4, serving: 4, rejected: 0)
    full.pValue = "0.0123"
    full.alpha = "0.0125"
    full.silent = ["app-3 (h:1)"]
    full.reason = "line\nbreak"
    let bytes = CanonicalJSON.encode(full.json)
    let back = try #require(GuardEvidence(json: try JSONParser.parse(bytes)))
    #expect(back.reason == "line break")
    full.reason = "line break"
    #expect(back == full)
    #expect(GuardEvidence(json: .object(["sha256": .string(sha)])) == nil)
  }

  @Test func aGuardedStepIsSignedAndAPersonsUpdateDropsTheEvidence() throws {
    try withTemporaryDirectory { dir in
      let folder = dir.path
      var (repository, ring, _) = try PublishFixtures.initialize(in: folder)
      var publication = Publication()
      try repository.setTarget(
        path: "flags", bytes: Array("1".utf8), version: "1", rollout: nil, replace: false,
        into: &publication)
      try repository.setTarget(
        path: "flags", bytes: Array("2".utf8), version: "2", rollout: RolloutFields(percent: 5),
        replace: true, into: &publication)
      try repository.publish(
        from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      try RepositoryWriter(folder: folder).write(publication)
      let staged = try #require(repository.guardedTarget("flags"))
      #expect(staged.percent == 5 && staged.fromVersion == "1" && staged.cohortKey == "2")

      publication = Publication()
      let step = GuardEvidence(
        sha256: staged.sha256, started: at, steps: [5, 25, 100], step: 25, verdict: "advance",
        at: at, reason: "healthy")
      try repository.signGuardStep(
        path: "flags", percent: 25, evidence: step, ring: ring, expiry: ExpiryPolicy(),
        now: Date(), into: &publication)
      try RepositoryWriter(folder: folder).write(publication)
      let (_, listed, _) = try PublishFixtures.verify(folder, target: "flags")
      #expect(listed?.custom?["rollout"]?["percent"] == .integer(25))
      #expect(listed?.custom?["rollout"]?["from"]?["version"] == .string("1"))
      let read = try #require(try Repository.load(folder: folder).guardedTarget("flags"))
      #expect(read.start == .resume(step))

      // Other bytes than judged: refused.
      var wrong = step
      wrong.sha256 = sha
      #expect(throws: PublishError.self) {
        try repository.signGuardStep(
          path: "flags", percent: 50, evidence: wrong, ring: ring, expiry: ExpiryPolicy(),
          now: Date(), into: &publication)
      }
      // publish update --rollout 50 by hand: a new rollout, no evidence.
      try repository.setTarget(
        path: "flags", bytes: nil, version: nil, rollout: RolloutFields(percent: 50),
        replace: true, into: &publication)
      #expect(repository.guardedTarget("flags")?.evidence == nil)
      #expect(repository.guardedTarget("flags")?.start == .start(50))
    }
  }

  @Test func expiriesThatWouldLapseRefuseTheStart() throws {
    try withTemporaryDirectory { dir in
      let folder = dir.path
      let now = Date()
      let (repository, _, _) = try PublishFixtures.initialize(in: folder, now: now)
      #expect(
        repository.guardExpiryProblem(
          now: now, plannedEnd: now + 3600, longestGap: 2400, expiry: ExpiryPolicy()) == nil)
      let short = repository.guardExpiryProblem(
        now: now, plannedEnd: now + 3600, longestGap: 2400,
        expiry: ExpiryPolicy(["timestamp": 600]))
      #expect(short?.hasPrefix("timestamp signed at a step lives 10m") == true, "\(short ?? "")")
      let root = repository.guardExpiryProblem(
        now: now, plannedEnd: now + 400 * 86_400, longestGap: 2400, expiry: ExpiryPolicy())
      #expect(root?.hasPrefix("root version 1 expires") == true, "\(root ?? "")")
    }
  }
}
