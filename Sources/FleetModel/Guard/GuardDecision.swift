import Foundation

/// One judgement's outcome: the verdict, the sentence saying why, and the evidence it rests on
/// (the canary's and the control's counts, the canary test's p-value when computed, the silent
/// instances by name). Pure data; what the guard prints and signs into `custom.rollout`.
package struct GuardDecision: Sendable, Equatable {
  /// ADVANCE, HOLD or HALT.
  package var verdict: GuardVerdict
  /// One sentence naming what decided (for a halt: what fired).
  package var reason: String
  /// A HOLD only because the soak has not passed (the step is healthy): it does not count
  /// toward the hold deadline.
  package var soaking: Bool
  /// Whether every instance of the step serves the version past probation now (the soak
  /// clock runs from the first judgement that says so).
  package var converged: Bool
  /// The canary: the instances the cohort function puts in the step.
  package var canary: Arm
  /// The control: the instances of the next band, held back on `from`.
  package var control: Arm
  /// The one-sided Fisher p-value, nil when the test was not computed.
  package var pValue: Double?
  /// The alpha the p-value was held against.
  package var alpha: Double
  /// Why the test was or was not computed, in words.
  package var test: String
  /// The instances expected in the step that report nothing: `id (scrape target)`.
  package var silent: [String]

  /// An arm's counts.
  package struct Arm: Sendable, Equatable {
    /// Instances in the arm by their id (silent ones included).
    package var instances: Int = 0
    /// Those reporting now.
    package var reporting: Int = 0
    /// Those serving the version judged (the new one for the canary, `from` for the control).
    package var serving: Int = 0
    /// Those still on probation.
    package var onProbation: Int = 0
    /// Those with a rejection (the canary: of the new version, standing; the control: of any
    /// other version, within the step's window).
    package var rejected: Int = 0

    /// Creates counts.
    package init(
      instances: Int = 0, reporting: Int = 0, serving: Int = 0, onProbation: Int = 0,
      rejected: Int = 0
    ) {
      self.instances = instances
      self.reporting = reporting
      self.serving = serving
      self.onProbation = onProbation
      self.rejected = rejected
    }
  }

  /// Creates a decision.
  package init(
    verdict: GuardVerdict, reason: String, soaking: Bool = false, converged: Bool = false,
    canary: Arm = Arm(), control: Arm = Arm(), pValue: Double? = nil, alpha: Double = 0,
    test: String = "", silent: [String] = []
  ) {
    self.verdict = verdict
    self.reason = reason
    self.soaking = soaking
    self.converged = converged
    self.canary = canary
    self.control = control
    self.pValue = pValue
    self.alpha = alpha
    self.test = test
    self.silent = silent
  }
}

/// What the guard remembers between judgements of one step, in memory (a restarted guard
/// starts both clocks again, which lengthens a soak and never shortens it).
package struct GuardProgress: Sendable, Equatable {
  /// When the step was first judged converged (the soak's start); nil while it is not.
  package var convergedSince: Date?
  /// When the current run of HOLDs (soaking aside) began; nil when the last was not one.
  package var holdingSince: Date?

  /// Creates progress.
  package init(convergedSince: Date? = nil, holdingSince: Date? = nil) {
    self.convergedSince = convergedSince
    self.holdingSince = holdingSince
  }

  /// The progress after `decision`, made at `time`.
  package func after(_ decision: GuardDecision, at time: Date) -> GuardProgress {
    var next = self
    next.convergedSince = decision.converged ? (convergedSince ?? time) : nil
    next.holdingSince =
      decision.verdict == .hold && !decision.soaking ? (holdingSince ?? time) : nil
    return next
  }
}
