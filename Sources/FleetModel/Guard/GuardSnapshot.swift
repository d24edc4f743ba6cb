import Foundation

/// What `publish guard` judges: the instances of the fleet that run the asset, each placed by
/// the cohort function, and the `--check` expressions that returned samples, all as of one
/// evaluation time; or why Prometheus could not say (then nothing is known). Pure data.
package struct GuardSnapshot: Sendable, Equatable {
  /// The evaluation time every query was asked at.
  package var at: Date
  /// The instances known in the lookback window (reporting now or silent).
  package var instances: [GuardInstance]
  /// The `--check` expressions that returned at least one sample.
  package var firedChecks: [FiredCheck]
  /// Why the queries gave no answer (Prometheus unreachable, an error): nil when they did.
  package var failure: String?

  /// A `--check` expression that returned samples: it fires like an alert rule.
  package struct FiredCheck: Sendable, Equatable {
    /// The expression as given.
    package var expression: String
    /// How many samples it returned.
    package var samples: Int
    /// The first sample's labels, `name="value"` joined (sanitized), for the sentence.
    package var firstLabels: String

    /// Creates a fired check.
    package init(expression: String, samples: Int, firstLabels: String = "") {
      self.expression = expression
      self.samples = samples
      self.firstLabels = firstLabels
    }
  }

  /// Creates a snapshot.
  package init(
    at: Date, instances: [GuardInstance], firedChecks: [FiredCheck] = [], failure: String? = nil
  ) {
    self.at = at
    self.instances = instances
    self.firedChecks = firedChecks
    self.failure = failure
  }

  /// A snapshot that knows nothing: Prometheus did not answer (`reason`).
  package static func unanswered(at: Date, reason: String) -> GuardSnapshot {
    GuardSnapshot(at: at, instances: [], failure: reason)
  }
}
