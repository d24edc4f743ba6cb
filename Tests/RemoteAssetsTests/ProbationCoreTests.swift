import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// The probation core driven by events, checked by the actions it returns: going on probation
/// after a commit, confirmation, the state loaded at start, probation's end by elapsed time and
/// wall-clock steps, and the ledger changes. No engine, origin, disk or sleep.
@Suite struct ProbationCoreTests {
  typealias F = ProbationCoreFixture

  // MARK: - Commit

  @Test func aCommitWithAPolicyGoesOnProbationAndWritesTheLedgerBeforeShowingIt() {
    var core = ProbationCore()
    let actions = core.committed(
      "flags", sha: F.sha("v2"), version: "v2", at: F.t0, policy: F.policy, run: nil)
    #expect(
      actions == [
        .writeLedger(
          "flags", .begin(F.probation(), clearRejections: true, claimedBy: nil), then: nil),
        .show("flags", probation: F.probation(), rejection: nil),
      ])
    #expect(core.probation("flags") == F.probation())
    #expect(core.assets["flags"]?.endsAt == F.t0.uptime + 600, "elapsed time, not the wall clock")
  }

  @Test func aCommitWhileAutoRefreshRunsHoldsTheRunLockAndClaimsTheProbation() {
    var core = ProbationCore()
    let actions = core.committed(
      "flags", sha: F.sha("v2"), version: "v2", at: F.t0, policy: F.policy, run: F.run)
    #expect(
      actions == [
        .holdRunLock(token: F.run.token),
        .writeLedger(
          "flags", .begin(F.probation(), clearRejections: true, claimedBy: F.run), then: nil),
        .show("flags", probation: F.probation(), rejection: nil),
      ])
  }

  @Test func aCommitWithoutAPolicyOrRejectionChangesNothing() {
    var core = ProbationCore()
    let actions = core.committed(
      "flags", sha: F.sha("v2"), version: "v2", at: F.t0, policy: .off, run: F.run)
    #expect(actions.isEmpty)
    #expect(core.probation("flags") == nil)
  }

  @Test func aCommitOfOtherBytesEndsARejectionEvenWithoutAPolicy() {
    var core = ProbationCore()
    _ = core.load("flags", item: item(rejected: F.rejection("v2")), served: F.sha("v1"), at: F.t0)
    let actions = core.committed(
      "flags", sha: F.sha("v3"), version: "v3", at: F.t0, policy: .off, run: F.run)
    #expect(
      actions == [
        .writeLedger("flags", .begin(nil, clearRejections: true, claimedBy: F.run), then: nil),
        .show("flags", probation: nil, rejection: nil),
      ], "no run lock: nothing is on probation")
    #expect(core.rejection("flags") == nil)
  }

  @Test func aCommitOfTheRejectedBytesKeepsTheRejection() {
    var core = ProbationCore()
    _ = core.load("flags", item: item(rejected: F.rejection("v2")), served: F.sha("v1"), at: F.t0)
    let actions = core.committed(
      "flags", sha: F.sha("v2"), version: "v2", at: F.t0, policy: F.policy, run: nil)
    #expect(
      actions == [
        .writeLedger(
          "flags", .begin(F.probation(), clearRejections: false, claimedBy: nil), then: nil),
        .show("flags", probation: F.probation(), rejection: F.rejection("v2")),
      ])
  }

  @Test func aCommitOverAProbationStartsANewOneWithNoCrashesCounted() {
    var core = F.onProbation("v2")
    let later = F.after(60)
    _ = core.committed(
      "flags", sha: F.sha("v3"), version: "v3", at: later, policy: F.policy, run: nil)
    let probation = core.probation("flags")
    #expect(probation?.version == "v3" && probation?.since == later.wall)
    #expect(probation?.until == later.wall.addingTimeInterval(600) && probation?.crashes == 0)
  }

  @Test func withoutConfirmAfterOnlyAConfirmationEndsProbation() {
    let policy = ProbationPolicy(enabled: true, confirmAfter: nil, crashes: 2)
    var core = F.onProbation(policy: policy)
    #expect(core.probation("flags")?.until == nil)
    #expect(core.tick(at: F.after(30 * 86400), order: ["flags"]).isEmpty)
    #expect(core.probation("flags") != nil)
  }

  // MARK: - Confirm

  @Test func confirmingAnUnknownAssetIsRefused() {
    var core = F.onProbation()
    #expect(core.confirm("nosuch", copies: nil) == [.refuse("no asset named nosuch")])
    #expect(core.probation("flags") != nil)
  }

  @Test func confirmingWithNothingOnProbationOnlySaysSo() {
    var core = ProbationCore()
    #expect(
      core.confirm("flags", copies: F.copies("v1"))
        == [.log("flags", .info, "nothing on probation to confirm")])
  }

  @Test func confirmingShowsTheEndThenWritesTheLedgerAndWaitsForIt() {
    var core = F.onProbation()
    let actions = core.confirm("flags", copies: F.copies("v2", previous: "v1"))
    #expect(
      actions == [
        .show("flags", probation: nil, rejection: nil),
        .writeLedger("flags", .end, then: .confirmed("flags", shown: "v2")),
      ])
    #expect(core.probation("flags") == nil && core.assets["flags"]?.endsAt == nil)
  }

  @Test func aConfirmationWrittenIsLoggedAndPublished() {
    var core = F.onProbation()
    _ = core.confirm("flags", copies: F.copies("v2"))
    #expect(
      core.ledgerWritten(.confirmed("flags", shown: "v2"), failure: nil)
        == [.log("flags", .info, "confirmed v2"), .publishChange("flags")])
  }

  @Test func aConfirmationNotWrittenIsRefusedWithWhy() {
    var core = F.onProbation()
    _ = core.confirm("flags", copies: F.copies("v2"))
    let failure = "saving the rollout state failed: no space left"
    #expect(
      core.ledgerWritten(.confirmed("flags", shown: "v2"), failure: failure) == [.refuse(failure)])
  }

  @Test func aVersionWithoutANameIsShownByItsHash() {
    var core = ProbationCore()
    _ = core.committed(
      "flags", sha: F.sha("v2"), version: nil, at: F.t0, policy: F.policy, run: nil)
    let actions = core.confirm("flags", copies: F.copies("v2"))
    #expect(
      actions.last == .writeLedger("flags", .end, then: .confirmed("flags", shown: "22222222")))
  }

  @Test func aSecondConfirmationFindsNothingOnProbation() {
    var core = F.onProbation()
    _ = core.confirm("flags", copies: F.copies("v2"))
    #expect(
      core.confirm("flags", copies: F.copies("v2"))
        == [.log("flags", .info, "nothing on probation to confirm")])
  }

  @Test func aConfirmedVersionIsNotConfirmedAgainAtItsDeadline() {
    var core = F.onProbation()
    _ = core.confirm("flags", copies: F.copies("v2"))
    #expect(core.tick(at: F.after(601), order: ["flags"]).isEmpty)
  }

  // MARK: - Load

  @Test func theLedgerLoadedKeepsTheRejectionAndTheProbationOfTheBytesServed() {
    var core = ProbationCore()
    let actions = core.load(
      "flags", item: item(probation: F.probation(), rejected: F.rejection("v1")),
      served: F.sha("v2"), at: F.after(10))
    #expect(actions == [.show("flags", probation: F.probation(), rejection: F.rejection("v1"))])
  }

  @Test func aProbationOfBytesNoLongerServedIsNotLoaded() {
    var core = ProbationCore()
    let actions = core.load(
      "flags", item: item(probation: F.probation(), rejected: F.rejection("v3")),
      served: F.sha("v1"), at: F.t0)
    #expect(actions == [.show("flags", probation: nil, rejection: F.rejection("v3"))])
  }

  @Test func aProbationWhoseDeadlinePassedWhileNoEngineRanIsNotLoaded() {
    var core = ProbationCore()
    let actions = core.load(
      "flags", item: item(probation: F.probation()), served: F.sha("v2"), at: F.after(600))
    #expect(actions == [.show("flags", probation: nil, rejection: nil)])
  }

  /// Across a restart only the wall clock is known: what is left of the persisted deadline on
  /// it then runs in elapsed time.
  @Test func aProbationLoadedAtStartEndsWhatIsLeftOfItsWallDeadlineLater() {
    var core = ProbationCore()
    // A new process: elapsed time starts again near zero, 200 s of wall time after the commit.
    let start = ClockReading(wall: F.t0.wall.addingTimeInterval(200), uptime: 3)
    _ = core.load("flags", item: item(probation: F.probation()), served: F.sha("v2"), at: start)
    #expect(core.assets["flags"]?.endsAt == 403)
    #expect(core.tick(at: F.after(399, start), order: ["flags"]).isEmpty)
    #expect(core.tick(at: F.after(400, start), order: ["flags"]).contains(.publishChange("flags")))
    #expect(core.probation("flags") == nil)
  }

  @Test func aProbationWithoutDeadlineLoadsAndNeverEndsByTime() {
    var core = ProbationCore()
    let probation = F.probation(until: nil)
    _ = core.load("flags", item: item(probation: probation), served: F.sha("v2"), at: F.after(9e6))
    #expect(core.probation("flags") == probation)
    #expect(core.tick(at: F.after(9e7), order: ["flags"]).isEmpty)
  }

  @Test func onProbationListsTheAssetsInTheEnginesOrder() {
    var core = F.onProbation()
    _ = core.committed("a", sha: F.sha("v1"), version: "v1", at: F.t0, policy: F.policy, run: nil)
    _ = core.committed("b", sha: F.sha("v1"), version: "v1", at: F.t0, policy: .off, run: nil)
    #expect(core.onProbation(["b", "flags", "x", "a"]) == ["flags", "a"])
    #expect(ProbationCore().onProbation(["a", "b"]).isEmpty)
  }

  // MARK: - Probation's end, by elapsed time

  @Test func aTickBeforeTheDeadlineDoesNothing() {
    var core = F.onProbation()
    #expect(core.tick(at: F.after(599), order: ["flags"]).isEmpty)
    #expect(core.probation("flags") != nil)
  }

  @Test func aTickAtTheDeadlineConfirmsWithoutAWord() {
    var core = F.onProbation()
    let actions = core.tick(at: F.after(600), order: ["flags"])
    #expect(
      actions == [
        .show("flags", probation: nil, rejection: nil),
        .log("flags", .info, "confirmed v2: no rejection in its probation time"),
        .publishChange("flags"),
        .writeLedger("flags", .end, then: nil),
      ])
    #expect(core.probation("flags") == nil)
  }

  @Test func aWallClockSteppedBackDoesNotDelayTheEnd() {
    var core = F.onProbation()
    // A day back, then the ten minutes elapse: the wall clock reads long before `until`.
    let actions = core.tick(at: F.after(600, step: -86400), order: ["flags"])
    #expect(
      actions.contains(.log("flags", .info, "confirmed v2: no rejection in its probation time")))
    #expect(core.probation("flags") == nil)
  }

  @Test func aWallClockSteppedForwardDoesNotEndItEarly() {
    var core = F.onProbation()
    let now = F.after(10, step: 86400)
    let actions = core.tick(at: now, order: ["flags"])
    var moved = F.probation()
    moved.until = now.wall.addingTimeInterval(590)
    #expect(
      actions == [
        .show("flags", probation: moved, rejection: nil),
        .log("flags", .info, "the clock went forward 1d; v2 stays on probation for 9m more"),
        .publishChange("flags"),
        .writeLedger("flags", .restamp(moved), then: nil),
      ])
    #expect(core.probation("flags") == moved, "still on probation, its deadline shown moved")
    #expect(core.tick(at: F.after(599, step: 86400), order: ["flags"]).isEmpty)
    #expect(
      core.tick(at: F.after(600, step: 86400), order: ["flags"]).contains(.publishChange("flags")))
  }

  @Test func aStepBackMovesTheDeadlineShownBackWithIt() {
    var core = F.onProbation()
    let now = F.after(100, step: -3600)
    let actions = core.tick(at: now, order: ["flags"])
    #expect(
      actions.contains(
        .log("flags", .info, "the clock went back 1h; v2 stays on probation for 8m more")))
    #expect(core.probation("flags")?.until == now.wall.addingTimeInterval(500))
    #expect(core.tick(at: F.after(200, step: -3600), order: ["flags"]).isEmpty, "moved once")
  }

  @Test func aWallClockReadOutOfStepWithinTheToleranceIsNoStep() {
    var core = F.onProbation()
    #expect(
      core.tick(at: F.after(5, step: ProbationCore.clockStepTolerance), order: ["flags"]).isEmpty)
    #expect(
      core.tick(at: F.after(5, step: -ProbationCore.clockStepTolerance), order: ["flags"]).isEmpty)
    #expect(core.probation("flags") == F.probation())
  }

  @Test func aTickActsInTheEnginesOrderAndOnlyOnItsAssets() {
    var core = F.onProbation()
    _ = core.committed("a", sha: F.sha("v1"), version: "v1", at: F.t0, policy: F.policy, run: nil)
    let actions = core.tick(at: F.after(600), order: ["a", "flags"])
    let published = actions.filter { if case .publishChange = $0 { true } else { false } }
    #expect(published == [.publishChange("a"), .publishChange("flags")])
    var other = F.onProbation()
    #expect(other.tick(at: F.after(600), order: ["a"]).isEmpty, "an asset no longer configured")
  }

  // MARK: - Ledger changes

  @Test func beginClaimsOnlyAProbationAndClearsRejectionsWhenAsked() {
    var item = item(rejected: F.rejection("v1"))
    ProbationLedgerChange.begin(F.probation(), clearRejections: false, claimedBy: F.run).apply(
      to: &item)
    #expect(item.probation == F.probation() && item.isClaimed(by: F.run))
    #expect(item.rejected == F.rejection("v1"))
    ProbationLedgerChange.begin(nil, clearRejections: true, claimedBy: F.run).apply(to: &item)
    #expect(item.isEmpty, "nothing on probation: no run claims it; rejections cleared")
  }

  @Test func endRejectClaimAndRestampChangeWhatTheySay() {
    var item = RolloutLedger.Item()
    ProbationLedgerChange.claim(F.probation(crashes: 1), by: F.run).apply(to: &item)
    #expect(item.probation?.crashes == 1 && item.runningStartTicks == 7)
    var moved = F.probation()
    moved.until = nil
    ProbationLedgerChange.restamp(moved).apply(to: &item)
    #expect(item.probation == moved && item.isClaimed(by: F.run), "the claim stays")
    ProbationLedgerChange.reject(F.rejection("v2")).apply(to: &item)
    #expect(item.rejected == F.rejection("v2") && item.probation == nil && item.runningPID == nil)
    ProbationLedgerChange.claim(F.probation(), by: F.run).apply(to: &item)
    ProbationLedgerChange.end.apply(to: &item)
    #expect(item.probation == nil && item.runningToken == nil && item.rejected != nil)
  }

  // MARK: - Helpers

  private func item(
    probation: AssetProbation? = nil, rejected: AssetRejection? = nil
  ) -> RolloutLedger.Item {
    var item = RolloutLedger.Item()
    item.probation = probation
    item.rejected = rejected
    return item
  }
}
