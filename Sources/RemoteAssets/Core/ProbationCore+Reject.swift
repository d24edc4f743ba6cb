import AssetModel
import Foundation

/// A rejection, step by step: go back to the previous copy (never onto rejected bytes), else to
/// the bundled copy, and record the rejection only once its bytes are no longer served (a
/// rejection recorded while its bytes are served would keep them served for good: neither
/// fetched again nor replaced).
extension ProbationCore {
  /// Rejects the version `id` serves, for `reason`. `copies` is nil for an unknown id;
  /// `standing` holds the hashes of the rejections that stand. With `crashGuard` (the
  /// crash-loop guard rejects) a refusal is logged and the probation claimed instead.
  mutating func reject(
    _ id: String, reason: String, copies: Copies?, standing: Set<String>, at now: ClockReading,
    crashGuard: CrashGuard? = nil
  ) -> [ProbationAction] {
    guard let copies else { return refusal(id, "no asset named \(id)", crashGuard) }
    guard let current = copies.current else {
      return refusal(id, "\(id) serves no downloaded version to reject", crashGuard)
    }
    var rejecting = Rejecting(
      id: id, served: current,
      reason: TerminalText.sanitize(reason.isEmpty ? "no reason given" : reason, maxLength: 200),
      problems: [], hadPrevious: copies.previous != nil, crashGuard: crashGuard)
    if let previous = copies.previous {
      guard standing.union([current.sha256]).contains(previous.sha256) else {
        return [.rollBack(rejecting)]
      }
      // After a rollback the previous generation is the copy rejected then.
      rejecting.problems.append("the previous copy (\(Self.shown(previous))) was rejected too")
    } else {
      rejecting.problems.append("there is no previous copy")
    }
    return afterGoingBack(rejecting, copies: copies, at: now)
  }

  /// The rollback of a rejection finished; `copies` as they are now.
  mutating func rolledBack(
    _ rejecting: Rejecting, copies: Copies?, at now: ClockReading
  ) -> [ProbationAction] {
    afterGoingBack(rejecting, copies: copies, at: now)
  }

  /// The rollback of a rejection failed, for `problem`; `copies` as they are now.
  mutating func rollbackFailed(
    _ rejecting: Rejecting, because problem: String, copies: Copies?, at now: ClockReading
  ) -> [ProbationAction] {
    var rejecting = rejecting
    rejecting.problems.append(problem)
    return afterGoingBack(rejecting, copies: copies, at: now)
  }

  /// A rejection's reset to the bundled copy finished: the rejection is recorded.
  mutating func resetToBundled(_ rejecting: Rejecting, at now: ClockReading) -> [ProbationAction] {
    record(rejecting, at: now)
  }

  /// A rejection's reset to the bundled copy failed, for `problem`: nothing changed.
  mutating func resetFailed(_ rejecting: Rejecting, because problem: String) -> [ProbationAction] {
    refusal(
      rejecting.id,
      "cannot reject \(rejecting.id): \(Self.problems(rejecting)), and going back to the bundled copy failed: \(problem); \(Self.unchanged(rejecting))",
      rejecting.crashGuard)
  }

  // MARK: - Steps

  /// Still the rejected bytes (no rollback, or it failed): the bundled copy, if there is one.
  /// Otherwise (another process replaced them meanwhile, too) the rejection is recorded.
  private mutating func afterGoingBack(
    _ rejecting: Rejecting, copies: Copies?, at now: ClockReading
  ) -> [ProbationAction] {
    guard copies?.current?.sha256 == rejecting.served.sha256 else {
      return record(rejecting, at: now)
    }
    guard copies?.hasBundled == true else {
      return refusal(
        rejecting.id,
        "cannot reject \(rejecting.id): \(Self.problems(rejecting)), and there is no bundled copy to go back to; \(Self.unchanged(rejecting))",
        rejecting.crashGuard)
    }
    var actions: [ProbationAction] = []
    if rejecting.hadPrevious {
      actions.append(
        .log(rejecting.id, .warning, "\(Self.problems(rejecting)); going back to the bundled copy")
      )
    }
    return actions + [.resetToBundled(rejecting)]
  }

  /// Gone back: the rejection goes on disk before the record shows it (what a snapshot shows
  /// as rejected, a process killed right after finds rejected at its next start).
  private func record(_ rejecting: Rejecting, at now: ClockReading) -> [ProbationAction] {
    let rejection = AssetRejection(
      version: rejecting.served.version, sha256: rejecting.served.sha256,
      reason: rejecting.reason, at: now.wall)
    return [
      .writeLedger(rejecting.id, .reject(rejection), then: .rejected(rejecting, rejection))
    ]
  }

  /// The ledger write of a rejection finished. The engine keeps the rejection either way (it
  /// neither fetches nor commits those bytes); when it was not saved the next start does not
  /// know it.
  mutating func recorded(
    _ rejecting: Rejecting, _ rejection: AssetRejection, failure: String?
  ) -> [ProbationAction] {
    let id = rejecting.id
    var asset = assets[id] ?? Asset()
    asset.rejection = rejection
    asset.probation = nil
    asset.endsAt = nil
    assets[id] = asset
    let shown = Self.shown(rejecting.served)
    let actions: [ProbationAction] = [
      .show(id, probation: nil, rejection: rejection), .publishChange(id),
    ]
    if let failure {
      return actions
        + refusal(
          id,
          "\(id): went back from \(shown), but recording its rejection failed (\(failure)): after a restart it may be fetched again",
          rejecting.crashGuard)
    }
    return actions + [
      .log(
        id, .warning,
        SentenceText.joined([
          "rejected \(shown): \(rejecting.reason)", "not fetched again until the target changes",
        ]))
    ]
  }

  /// A command refuses with `message`. The crash-loop guard logs it instead and, while the
  /// version is still on probation, claims it with its crashes counted.
  private mutating func refusal(
    _ id: String, _ message: String, _ crashGuard: CrashGuard?
  ) -> [ProbationAction] {
    guard let crashGuard else { return [.refuse(message)] }
    let log = ProbationAction.log(id, .error, message)
    guard assets[id]?.probation != nil else { return [log] }
    return [log] + claim(id, crashGuard.probation, by: crashGuard.run)
  }

  private static func problems(_ rejecting: Rejecting) -> String {
    rejecting.problems.joined(separator: "; ")
  }

  private static func unchanged(_ rejecting: Rejecting) -> String {
    "it still serves \(shown(rejecting.served)) and no rejection was recorded"
  }
}
