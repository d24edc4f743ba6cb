import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// What the probation core decides around a run that the engine decided before: the ledger
/// loaded for the assets it has, a commit of an asset gone meanwhile, who claims and releases
/// probations, which recorded runs ended, and the rejections that stand. No engine, disk or
/// sleep.
@Suite struct ProbationCoreRunsTests {
  typealias F = ProbationCoreFixture

  static let other = RunIdentity(
    pid: 43, token: "0d6c0c4e-6d1f-4a57-9f0e-000000000043", startTicks: 8)

  static func item(
    probation: AssetProbation? = nil, rejected: AssetRejection? = nil, claimedBy: RunIdentity? = nil
  ) -> RolloutLedger.Item {
    var item = RolloutLedger.Item()
    item.probation = probation
    if let rejected { item.reject(rejected) }
    if let claimedBy { item.claim(by: claimedBy) }
    return item
  }

  // MARK: - Start and commit

  @Test func theLoadedLedgerShowsOnlyAssetsTheEngineHas() {
    var core = ProbationCore()
    var ledger = RolloutLedger()
    ledger.assets["flags"] = Self.item(probation: F.probation())
    ledger.assets["gone"] = Self.item(rejected: F.rejection("v1"))
    let actions = core.load(
      ledger, copies: { $0 == "flags" ? F.copies("v2") : nil }, at: F.t0)
    #expect(actions == [.show("flags", probation: F.probation(), rejection: nil)])
    #expect(core.rejection("gone") == nil)
  }

  @Test func aCommitOfAnAssetRemovedMeanwhileChangesNothing() {
    var core = ProbationCore()
    let actions = core.committed(
      "flags", copies: nil, sha: F.sha("v2"), version: "v2", at: F.t0, policy: F.policy,
      autoRefresh: true, run: F.run)
    #expect(actions.isEmpty)
    #expect(core.probation("flags") == nil)
  }

  @Test func onlyAutoRefreshClaimsACommitsProbation() {
    var oneShot = ProbationCore()
    let quiet = oneShot.committed(
      "flags", copies: F.copies("v1"), sha: F.sha("v2"), version: "v2", at: F.t0,
      policy: F.policy, autoRefresh: false, run: F.run)
    #expect(
      quiet.first
        == .writeLedger(
          "flags", .begin(F.probation(), clearRejections: true, claimedBy: nil), then: nil))
    var serving = ProbationCore()
    let claimed = serving.committed(
      "flags", copies: F.copies("v1"), sha: F.sha("v2"), version: "v2", at: F.t0,
      policy: F.policy, autoRefresh: true, run: F.run)
    #expect(claimed.first == .holdRunLock(token: F.run.token))
  }

  @Test func probationsAreClaimedOnlyWithAPolicyOnAWritableCache() {
    let core = F.onProbation()
    #expect(core.toClaim(["other", "flags"], policy: F.policy, readOnly: false) == ["flags"])
    #expect(core.toClaim(["flags"], policy: .off, readOnly: false).isEmpty)
    #expect(core.toClaim(["flags"], policy: F.policy, readOnly: true).isEmpty)
    #expect(core.toRelease(["flags"], readOnly: false) == ["flags"])
    #expect(core.toRelease(["flags"], readOnly: true).isEmpty)
    #expect(ProbationCore().toClaim(["flags"], policy: F.policy, readOnly: false).isEmpty)
  }

  @Test func aRunRecordedThatIsNoLongerLiveEndedAndThisRunDidNot() {
    var ledger = RolloutLedger()
    ledger.assets["mine"] = Self.item(probation: F.probation(), claimedBy: F.run)
    ledger.assets["crashed"] = Self.item(probation: F.probation(), claimedBy: Self.other)
    ledger.assets["live"] = Self.item(probation: F.probation(), claimedBy: Self.other)
    let ended = ProbationCore.endedRuns(
      ["mine", "crashed", "missing"], in: ledger, me: F.run, runLive: { _ in false })
    #expect(ended == ["crashed"])
    #expect(
      ProbationCore.endedRuns(["live"], in: ledger, me: F.run, runLive: { _ in true }).isEmpty)
  }

  // MARK: - Shutdown

  @Test func aCleanShutdownReleasesOnlyThisRunsClaims() {
    var ledger = RolloutLedger()
    ledger.assets["mine"] = Self.item(probation: F.probation(), claimedBy: F.run)
    ledger.assets["theirs"] = Self.item(probation: F.probation(), claimedBy: Self.other)
    #expect(ProbationCore.claimsAny(["theirs", "mine"], by: F.run, in: ledger))
    #expect(!ProbationCore.claimsAny(["theirs"], by: F.run, in: ledger), "no write at exit")
    ProbationCore.release(["mine", "theirs"], by: F.run, in: &ledger)
    #expect(ledger.assets["mine"]?.runningPID == nil)
    #expect(ledger.assets["mine"]?.probation == F.probation(), "still on probation")
    #expect(ledger.assets["theirs"]?.isClaimed(by: Self.other) == true)
  }

  @Test func aLedgerChangeMakesTheItemOfAnAssetWithoutOne() {
    var ledger = RolloutLedger()
    ProbationLedgerChange.claim(F.probation(), by: F.run).apply(to: &ledger, id: "flags")
    #expect(ledger.assets["flags"]?.probation == F.probation())
    #expect(ledger.assets["flags"]?.isClaimed(by: F.run) == true)
  }

  @Test func aWriteNothingWaitedForLeadsNowhereEvenWhenItFails() {
    var core = F.onProbation()
    let actions = core.ledgerWritten(nil, failure: "disk full")
    #expect(actions.isEmpty)
    #expect(core.probation("flags") == F.probation())
  }

  @Test func aTicksRecordActionsComeAtOnceAndItsWritesAfter() {
    var core = F.onProbation()
    let actions = core.tick(at: F.after(601), order: ["flags"])
    let (now, writes) = ProbationCore.split(actions)
    #expect(
      now == [
        .show("flags", probation: nil, rejection: nil),
        .log("flags", .info, "confirmed v2: no rejection in its probation time"),
        .publishChange("flags"),
      ])
    #expect(writes == [.writeLedger("flags", .end, then: nil)])
  }

  // MARK: - Rejections that stand

  @Test func withoutARejectionNoLedgerIsReadAndTheLastOneAnswersForItsBytes() {
    var core = ProbationCore()
    #expect(core.knownRejection(of: F.sha("v2"), "flags") == .init(rejection: nil))
    #expect(core.standing("flags", ledger: [F.rejection("v1")]).isEmpty)
    _ = core.load(
      "flags", item: Self.item(rejected: F.rejection("v2")), served: F.sha("v1"), at: F.t0)
    #expect(core.knownRejection(of: F.sha("v2"), "flags") == .init(rejection: F.rejection("v2")))
    #expect(core.knownRejection(of: F.sha("v3"), "flags") == nil, "the ledger knows earlier ones")
  }

  @Test func theRejectionsThatStandAreTheLedgersAndTheLastOnce() {
    var core = ProbationCore()
    _ = core.load(
      "flags", item: Self.item(rejected: F.rejection("v3")), served: F.sha("v1"), at: F.t0)
    #expect(
      core.standing("flags", ledger: [F.rejection("v2"), F.rejection("v3")])
        == [F.rejection("v2"), F.rejection("v3")])
    #expect(core.standing("flags", ledger: nil) == [F.rejection("v3")])
    #expect(
      core.standing("flags", ledger: [F.rejection("v2")]) == [F.rejection("v2"), F.rejection("v3")])
    let later = AssetRejection(version: "v2", sha256: F.sha("v2"), reason: "again", at: F.t0.wall)
    #expect(
      ProbationCore.rejection(of: F.sha("v2"), in: [F.rejection("v2"), later]) == later)
  }

  @Test func aHeldCheckSaysWhichVersionWasRejectedAndWhy() {
    #expect(
      ProbationCore.holdReason(F.rejection("v2", reason: "crashed"))
        == SentenceText.joined(["rejected v2: crashed", "not fetched until the target changes"]))
    let nameless = AssetRejection(version: nil, sha256: F.sha("v2"), reason: "bad", at: F.t0.wall)
    #expect(ProbationCore.holdReason(nameless).hasPrefix("rejected: bad"))
  }

  @Test func aCommitKeepsTheLastConfirmedCopyToGoBackToAndNeverARejectedOne() {
    var entry = CacheEntry(id: "flags", appVersion: "1")
    entry.current = F.generation("v2")
    entry.previous = F.generation("v1")
    #expect(
      ProbationCore.previousAfterCommit(
        of: F.sha("v3"), over: entry, unconfirmed: nil, rejected: []) == F.generation("v2"))
    #expect(
      ProbationCore.previousAfterCommit(
        of: F.sha("v3"), over: entry, unconfirmed: F.sha("v2"), rejected: [])
        == F.generation("v1"), "v2 is still on probation")
    #expect(
      ProbationCore.previousAfterCommit(
        of: F.sha("v3"), over: entry, unconfirmed: F.sha("v2"), rejected: [F.sha("v1")]) == nil)
    #expect(
      ProbationCore.previousAfterCommit(
        of: F.sha("v2"), over: entry, unconfirmed: nil, rejected: []) == F.generation("v1"),
      "the same bytes again keep what was previous")
  }

  @Test func aStepsErrorLosesTheAssetIdItStartsWith() {
    #expect(ProbationCore.message("flags: no previous copy", of: "flags") == "no previous copy")
    #expect(ProbationCore.message("disk full", of: "flags") == "disk full")
    #expect(ProbationCore.message("flagship: x", of: "flags") == "flagship: x")
  }
}
