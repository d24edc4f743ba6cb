import Foundation
import RemoteAssets

/// What `wait` does after one look at the engine: a pure decision, tested without an engine.
enum WaitStep: Equatable {
  /// Not there yet: look again after the poll interval.
  case keepWaiting
  /// Every named asset serves its target: exit 0.
  case converged
  /// Ids that name no asset in the config or the manifest: exit 2, naming them all.
  case unknownAssets([String])
  /// A signal arrived: exit 128 + its number.
  case interrupted(Int32)
  /// The time is up: exit 1 with what is still behind.
  case timedOut

  /// Decides from `progress`, a signal that may have arrived, and the time.
  ///
  /// Convergence wins over everything (a signal or the deadline arriving in the same look does
  /// not turn a finished rollout into a failure). Unknown ids are decided at the first look
  /// after which the manifest (if any) has had an outcome, checked or failed, and not before
  /// (it may add them), so the same config and ids give the same answer every time.
  static func decide(
    _ progress: RolloutProgress, interruptedBy signal: Int32?, now: Date, deadline: Date
  ) -> WaitStep {
    if progress.isConverged { return .converged }
    if !progress.manifestPending, !progress.unknownIDs.isEmpty {
      return .unknownAssets(progress.unknownIDs)
    }
    if let signal { return .interrupted(signal) }
    if now >= deadline { return .timedOut }
    return .keepWaiting
  }

  /// The exit status of a step that ends the wait (nil for ``keepWaiting``).
  var exitStatus: Int32? {
    switch self {
    case .keepWaiting: nil
    case .converged: 0
    case .timedOut: 1
    case .unknownAssets: 2
    case .interrupted(let signal): 128 + signal
    }
  }
}
