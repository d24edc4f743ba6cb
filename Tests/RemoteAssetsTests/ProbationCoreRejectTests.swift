import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// Rejection and the crash-loop guard in the probation core, event by event: where a rejection
/// goes back to (the previous copy, never rejected bytes, else the bundled copy), that it is
/// recorded only once gone back, every refusal's words, and the guard's count, rejection and
/// claim. No engine, origin, disk or sleep.
@Suite struct ProbationCoreRejectTests {
  typealias F = ProbationCoreFixture

  static let tail = "it still serves v2 and no rejection was recorded"

  // MARK: - Where it goes back to

  @Test func rejectingAnUnknownAssetIsRefused() {
    var core = F.onProbation()
    #expect(
      core.reject("nosuch", reason: "x", copies: nil, standing: [], at: F.t0)
        == [.refuse("no asset named nosuch")])
  }

  @Test func theBundledCopyIsNotRejected() {
    var core = ProbationCore()
    #expect(
      core.reject(
        "flags", reason: "x", copies: F.copies(nil, bundled: true), standing: [], at: F.t0)
        == [.refuse("flags serves no downloaded version to reject")])
  }

  @Test func aRejectionGoesBackToThePreviousCopyFirstAndRecordsNothingYet() {
    var core = F.onProbation()
    let actions = core.reject(
      "flags", reason: "bad", copies: F.copies("v2", previous: "v1", bundled: true),
      standing: [], at: F.t0)
    #expect(actions == [.rollBack(F.rejecting())])
    #expect(core.rejection("flags") == nil && core.probation("flags") != nil)
  }

  @Test func goneBackTheRejectionIsWrittenWithTheTimeItWasRecorded() {
    var core = F.onProbation()
    let later = F.after(3)
    let actions = core.rolledBack(F.rejecting(), copies: F.copies("v1", previous: "v2"), at: later)
    let rejection = F.rejection(at: later)
    #expect(
      actions == [
        .writeLedger("flags", .reject(rejection), then: .rejected(F.rejecting(), rejection))
      ])
    #expect(core.rejection("flags") == nil, "the record shows it once it is on disk")
  }

  @Test func aRejectionOnDiskIsShownPublishedAndLogged() {
    var core = F.onProbation()
    let actions = core.ledgerWritten(.rejected(F.rejecting(), F.rejection()), failure: nil)
    #expect(
      actions == [
        .show("flags", probation: nil, rejection: F.rejection()),
        .publishChange("flags"),
        .log("flags", .warning, "rejected v2: bad; not fetched again until the target changes"),
      ])
    #expect(core.rejection("flags") == F.rejection() && core.probation("flags") == nil)
    #expect(core.tick(at: F.after(600), order: ["flags"]).isEmpty, "no deadline left")
  }

  @Test func aRejectionNotSavedIsKeptByThisEngineAndTheCommandSaysSo() {
    var core = F.onProbation()
    let actions = core.ledgerWritten(
      .rejected(F.rejecting(), F.rejection()), failure: "saving the rollout state failed: EIO")
    #expect(
      actions == [
        .show("flags", probation: nil, rejection: F.rejection()),
        .publishChange("flags"),
        .refuse(
          "flags: went back from v2, but recording its rejection failed (saving the rollout state failed: EIO): after a restart it may be fetched again"
        ),
      ])
    #expect(core.rejection("flags") == F.rejection())
  }

  @Test func aPreviousCopyRejectedBeforeIsPassedForTheBundledOne() {
    var core = F.onProbation()
    let actions = core.reject(
      "flags", reason: "bad", copies: F.copies("v2", previous: "v1", bundled: true),
      standing: [F.sha("v1")], at: F.t0)
    let rejecting = F.rejecting(problems: ["the previous copy (v1) was rejected too"])
    #expect(
      actions == [
        .log(
          "flags", .warning,
          "the previous copy (v1) was rejected too; going back to the bundled copy"),
        .resetToBundled(rejecting),
      ])
  }

  @Test func aPreviousCopyOfTheServedBytesIsNotGoneBackTo() {
    var core = F.onProbation()
    let actions = core.reject(
      "flags", reason: "bad", copies: F.copies("v2", previous: "v2", bundled: true),
      standing: [], at: F.t0)
    #expect(
      actions.last
        == .resetToBundled(F.rejecting(problems: ["the previous copy (v2) was rejected too"])))
  }

  @Test func withNoPreviousCopyItGoesToTheBundledOneWithoutAWarning() {
    var core = F.onProbation()
    let actions = core.reject(
      "flags", reason: "bad", copies: F.copies("v2", bundled: true), standing: [], at: F.t0)
    #expect(
      actions == [
        .resetToBundled(F.rejecting(problems: ["there is no previous copy"], hadPrevious: false))
      ])
  }

  @Test func withNowhereToGoItIsRefusedAndNothingChanges() {
    var core = F.onProbation()
    let before = core
    let actions = core.reject(
      "flags", reason: "bad", copies: F.copies("v2"), standing: [], at: F.t0)
    #expect(
      actions == [
        .refuse(
          "cannot reject flags: there is no previous copy, and there is no bundled copy to go back to; \(Self.tail)"
        )
      ])
    #expect(core == before)
  }

  @Test func aFailedRollbackFallsBackToTheBundledCopyAndSaysWhy() {
    var core = F.onProbation()
    let actions = core.rollbackFailed(
      F.rejecting(), because: "cannot roll back: the blob is missing",
      copies: F.copies("v2", previous: "v1", bundled: true), at: F.t0)
    #expect(
      actions == [
        .log(
          "flags", .warning, "cannot roll back: the blob is missing; going back to the bundled copy"
        ),
        .resetToBundled(F.rejecting(problems: ["cannot roll back: the blob is missing"])),
      ])
  }

  @Test func aFailedRollbackWithoutABundledCopyIsRefusedWithTheProblem() {
    var core = F.onProbation()
    let actions = core.rollbackFailed(
      F.rejecting(), because: "cannot roll back: the blob is missing",
      copies: F.copies("v2", previous: "v1"), at: F.t0)
    #expect(
      actions == [
        .refuse(
          "cannot reject flags: cannot roll back: the blob is missing, and there is no bundled copy to go back to; \(Self.tail)"
        )
      ])
    #expect(core.probation("flags") != nil && core.rejection("flags") == nil)
  }

  /// Another process replaced the rejected bytes meanwhile: they are not served, so the
  /// rejection is recorded (the original's check of what is served after going back).
  @Test func bytesNoLongerServedAfterAFailedRollbackAreRecordedRejected() {
    var core = F.onProbation()
    let actions = core.rollbackFailed(
      F.rejecting(), because: "changed meanwhile", copies: F.copies("v3"), at: F.t0)
    #expect(actions.count == 1)
    guard case .writeLedger("flags", .reject(let rejection), _) = actions.first else {
      Issue.record("\(actions)")
      return
    }
    #expect(rejection.sha256 == F.sha("v2"))
  }

  @Test func aRollbackThatLeftTheBytesServedGoesOnToTheBundledCopy() {
    var core = F.onProbation()
    let actions = core.rolledBack(
      F.rejecting(), copies: F.copies("v2", previous: "v1", bundled: true), at: F.t0)
    #expect(actions.last == .resetToBundled(F.rejecting()))
  }

  @Test func anAssetGoneWhileGoingBackStillHasItsRejectionRecorded() {
    var core = F.onProbation()
    let actions = core.rolledBack(F.rejecting(), copies: nil, at: F.t0)
    #expect(
      actions == [
        .writeLedger("flags", .reject(F.rejection()), then: .rejected(F.rejecting(), F.rejection()))
      ])
  }

  @Test func backOnTheBundledCopyTheRejectionIsRecorded() {
    var core = F.onProbation()
    let rejecting = F.rejecting(problems: ["there is no previous copy"], hadPrevious: false)
    #expect(
      core.resetToBundled(rejecting, at: F.t0)
        == [
          .writeLedger("flags", .reject(F.rejection()), then: .rejected(rejecting, F.rejection()))
        ])
  }

  @Test func aFailedResetIsRefusedAndRecordsNothing() {
    var core = F.onProbation()
    let before = core
    let rejecting = F.rejecting(problems: ["there is no previous copy"], hadPrevious: false)
    #expect(
      core.resetFailed(rejecting, because: "the bundled file is unreadable")
        == [
          .refuse(
            "cannot reject flags: there is no previous copy, and going back to the bundled copy failed: the bundled file is unreadable; \(Self.tail)"
          )
        ])
    #expect(core == before)
  }

  @Test func theReasonIsCleanedAndNeverEmpty() {
    var core = F.onProbation()
    let copies = F.copies("v2", previous: "v1")
    let cleaned = core.reject(
      "flags", reason: "checkout fails\u{1b}[2J", copies: copies, standing: [], at: F.t0)
    #expect(cleaned == [.rollBack(F.rejecting(reason: "checkout fails[2J"))])
    let empty = core.reject("flags", reason: "", copies: copies, standing: [], at: F.t0)
    #expect(empty == [.rollBack(F.rejecting(reason: "no reason given"))])
    let long = core.reject(
      "flags", reason: String(repeating: "x", count: 500), copies: copies, standing: [], at: F.t0)
    guard case .rollBack(let rejecting) = long.first else {
      Issue.record("\(long)")
      return
    }
    #expect(rejecting.reason == String(repeating: "x", count: 200) + "…", "200 characters kept")
  }

  @Test func aRejectionWithoutAVersionNameIsShownByItsHash() {
    var core = F.onProbation()
    var rejecting = F.rejecting()
    rejecting.served = F.generation("v2", named: false)
    let rejection = AssetRejection(version: nil, sha256: F.sha("v2"), reason: "bad", at: F.t0.wall)
    let actions = core.ledgerWritten(.rejected(rejecting, rejection), failure: nil)
    #expect(
      actions.last
        == .log(
          "flags", .warning, "rejected 22222222: bad; not fetched again until the target changes"))
  }

  // MARK: - Crash-loop guard

  @Test func atStartNothingOnProbationMeansNothingToDo() {
    var core = ProbationCore()
    #expect(
      core.started(
        "flags", ended: true, run: F.run, policy: F.policy, copies: F.copies("v2"), standing: [],
        at: F.t0
      ).isEmpty)
  }

  @Test func aRunThatEndedCleanlyCountsNoCrashAndThisRunClaims() {
    var core = F.onProbation()
    let actions = core.started(
      "flags", ended: false, run: F.run, policy: F.policy, copies: F.copies("v2"), standing: [],
      at: F.t0)
    #expect(
      actions == [
        .writeLedger("flags", .claim(F.probation(), by: F.run), then: nil),
        .show("flags", probation: F.probation(), rejection: nil),
        .publishChange("flags"),
      ])
  }

  @Test func aRunThatEndedCountsACrashBelowTheLimitAndThisRunClaims() {
    var core = F.onProbation()
    let actions = core.started(
      "flags", ended: true, run: F.run, policy: F.policy, copies: F.copies("v2"), standing: [],
      at: F.t0)
    #expect(
      actions.contains(.writeLedger("flags", .claim(F.probation(crashes: 1), by: F.run), then: nil))
    )
    #expect(core.probation("flags")?.crashes == 1)
  }

  @Test func atThePolicysCountTheGuardRejects() {
    var core = F.onProbation()
    _ = core.started(
      "flags", ended: true, run: F.run, policy: F.policy, copies: F.copies("v2"), standing: [],
      at: F.t0)
    let actions = core.started(
      "flags", ended: true, run: F.run, policy: F.policy,
      copies: F.copies("v2", previous: "v1"), standing: [], at: F.t0)
    let rejecting = F.rejecting(
      reason: "the app ended 2 times without a clean shutdown while it was on probation",
      crashGuard: ProbationCore.CrashGuard(probation: F.probation(crashes: 2), run: F.run))
    #expect(
      actions == [
        .log("flags", .warning, "v2 was on probation when the app ended 2 times"),
        .rollBack(rejecting),
      ])
  }

  @Test func withACountOfOneTheFirstCrashRejects() {
    let policy = ProbationPolicy(enabled: true, confirmAfter: 600, crashes: 1)
    var core = F.onProbation(policy: policy)
    let actions = core.started(
      "flags", ended: true, run: F.run, policy: policy, copies: F.copies("v2", previous: "v1"),
      standing: [], at: F.t0)
    #expect(
      actions.first == .log("flags", .warning, "v2 was on probation when the app ended 1 time"))
    #expect(actions.count == 2)
  }

  @Test func crashesCountedByEarlierRunsComeFromTheLedger() {
    var core = ProbationCore()
    var item = RolloutLedger.Item()
    item.probation = F.probation(crashes: 1)
    _ = core.load("flags", item: item, served: F.sha("v2"), at: F.t0)
    let actions = core.started(
      "flags", ended: true, run: F.run, policy: F.policy, copies: F.copies("v2", bundled: true),
      standing: [], at: F.t0)
    guard case .resetToBundled(let rejecting) = actions.last else {
      Issue.record("\(actions)")
      return
    }
    #expect(rejecting.crashGuard?.probation.crashes == 2)
  }

  @Test func aGuardThatCannotGoBackLogsAndClaimsWithTheCrashesCounted() {
    let policy = ProbationPolicy(enabled: true, confirmAfter: 600, crashes: 1)
    var core = F.onProbation(policy: policy)
    let actions = core.started(
      "flags", ended: true, run: F.run, policy: policy, copies: F.copies("v2"), standing: [],
      at: F.t0)
    #expect(
      actions == [
        .log("flags", .warning, "v2 was on probation when the app ended 1 time"),
        .log(
          "flags", .error,
          "cannot reject flags: there is no previous copy, and there is no bundled copy to go back to; \(Self.tail)"
        ),
        .writeLedger("flags", .claim(F.probation(crashes: 1), by: F.run), then: nil),
        .show("flags", probation: F.probation(crashes: 1), rejection: nil),
        .publishChange("flags"),
      ])
    #expect(core.probation("flags")?.crashes == 1)
  }

  @Test func aGuardWhoseResetFailedClaimsToo() {
    var core = F.onProbation()
    let crashGuard = ProbationCore.CrashGuard(probation: F.probation(crashes: 2), run: F.run)
    let actions = core.resetFailed(F.rejecting(crashGuard: crashGuard), because: "EIO")
    #expect(actions.first.map { if case .log(_, .error, _) = $0 { true } else { false } } == true)
    #expect(
      actions.contains(.writeLedger("flags", .claim(F.probation(crashes: 2), by: F.run), then: nil))
    )
  }

  @Test func aGuardThatWentBackButCouldNotSaveLogsAndClaimsNothing() {
    var core = F.onProbation()
    let crashGuard = ProbationCore.CrashGuard(probation: F.probation(crashes: 2), run: F.run)
    let actions = core.ledgerWritten(
      .rejected(F.rejecting(crashGuard: crashGuard), F.rejection()), failure: "EIO")
    #expect(
      actions == [
        .show("flags", probation: nil, rejection: F.rejection()),
        .publishChange("flags"),
        .log(
          "flags", .error,
          "flags: went back from v2, but recording its rejection failed (EIO): after a restart it may be fetched again"
        ),
      ])
  }

  @Test func aGuardsRejectionSavedEndsWithItsWarningAndNoClaim() {
    var core = F.onProbation()
    let crashGuard = ProbationCore.CrashGuard(probation: F.probation(crashes: 2), run: F.run)
    let actions = core.ledgerWritten(
      .rejected(
        F.rejecting(reason: "crashed", crashGuard: crashGuard), F.rejection(reason: "crashed")),
      failure: nil)
    #expect(
      actions.last
        == .log(
          "flags", .warning, "rejected v2: crashed; not fetched again until the target changes"))
    #expect(!actions.contains { if case .writeLedger = $0 { true } else { false } })
  }
}
