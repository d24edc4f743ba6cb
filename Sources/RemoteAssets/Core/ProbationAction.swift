import AssetModel
import Foundation

/// What the probation core asks the engine to do, in order. The engine performs each and feeds
/// the result of a step that can fail back to the core (``ProbationCore/wentBack(_:copies:at:)``,
/// ``ProbationCore/goingBackFailed(_:because:copies:)``, ``ProbationCore/ledgerWritten(_:failure:at:)``).
enum ProbationAction: Sendable, Equatable {
  /// Roll back to the previous generation (``AssetEngine/rollback(_:)``); report how it went.
  case rollBack(ProbationCore.Rejecting)
  /// Serve the bundled copy again (``AssetEngine/resetToBundled(_:)``); report how it went.
  case resetToBundled(ProbationCore.Rejecting)
  /// Write the asset's ledger item. With a follow-up, report whether it was written; without
  /// one, a failure changes nothing (the engine need not wait for it).
  case writeLedger(String, ProbationLedgerChange, then: ProbationCore.FollowUp?)
  /// Hold this run's lock (`tmp/run-<token>.lock`) before a probation is claimed for it.
  case holdRunLock(token: String)
  /// The asset's record shows this probation and rejection (status, hold reason).
  case show(String, probation: AssetProbation?, rejection: AssetRejection?)
  /// Tell subscribers the asset changed.
  case publishChange(String)
  /// Log a line about the asset.
  case log(String, EngineLogEntry.Level, String)
  /// The command fails with this message; nothing after it is performed.
  case refuse(String)
}
