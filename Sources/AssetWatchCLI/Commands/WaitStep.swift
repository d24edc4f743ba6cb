import Foundation
import RemoteAssets

/// What `wait` does after one look at the engine: a pure decision, tested without an engine.
enum WaitStep: Equatable {
  /// Not there yet: look again after the poll interval.
  case keepWaiting
  /// Every named asset serves its target: exit 0.
  case converged
  /// An id names no asset in the config or the manifest: exit 1 at once, saying which.
  case unknownAsset(String)
  /// A signal arrived: exit 128 + its number.
  case interrupted(Int32)
  /// The time is up: exit 1 with what is still behind.
  case timedOut

  /// Decides from `progress`, a signal that may have arrived, and the time.
  ///
  /// Convergence wins over everything (a signal or the deadline arriving in the same look does
  /// not turn a finished rollout into a failure). An unknown id is final only while the manifest
  /// is healthy: a failing manifest may be the reason the asset is not known yet.
  static func decide(
    _ progress: RolloutProgress, interruptedBy signal: Int32?, now: Date, deadline: Date
  ) -> WaitStep {
    if progress.isConverged { return .converged }
    if progress.manifestProblem == nil, let unknown = progress.unknownIDs.first {
      return .unknownAsset(unknown)
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
    case .unknownAsset, .timedOut: 1
    case .interrupted(let signal): 128 + signal
    }
  }
}
