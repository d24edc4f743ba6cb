import AssetModel
import Foundation

/// The guard's judgement of one step from one ``GuardSnapshot``: ADVANCE, HOLD or HALT, with the
/// evidence. Pure: the same snapshot, progress and rules always give the same decision.
///
/// - HALT when a `--check` fired; when the crash-loop guard rejected the new version on a canary
///   instance; when the canary's standing rejections of the new version exceed
///   `maxRejections`; when the canary rejects significantly more often than the control
///   (one-sided Fisher exact test at `alpha`, computed only with at least
///   ``GuardPlan/minimumArm`` instances per arm and when the arm sizes let it fire at all);
///   or when the HOLDs (soaking aside) have lasted `holdDeadline`.
/// - ADVANCE when every canary instance reports, serves the version and has left probation
///   (rejections the cap tolerates aside), that has held for `soak`, and nothing halts. A step
///   no instance falls in advances at once: there is nothing to run it.
/// - HOLD otherwise: no data is never health.
package struct GuardJudgement: Sendable, Equatable {
  /// The asset's id (for the sentences).
  package var asset: String
  /// The version rolled out (the `version` label instances report).
  package var version: String
  /// The version instances held back serve, when the rollout names one.
  package var fromVersion: String?
  /// The step judged, in percent (the canary is `[0, step)`).
  package var step: Int
  /// The next step (the control is `[step, next)`).
  package var nextStep: Int
  /// Standing rejections of the new version the canary may have before it halts.
  package var maxRejections: Int
  /// How long the step must stay converged before it advances.
  package var soak: TimeInterval
  /// How long HOLDs (soaking aside) may last before they halt.
  package var holdDeadline: TimeInterval
  /// The canary test's alpha (``GuardPlan/alpha``).
  package var alpha: Double

  /// Creates the rules of one step's judgement.
  package init(
    asset: String, version: String, fromVersion: String?, step: Int, nextStep: Int,
    maxRejections: Int, soak: TimeInterval, holdDeadline: TimeInterval, alpha: Double
  ) {
    self.asset = asset
    self.version = version
    self.fromVersion = fromVersion
    self.step = step
    self.nextStep = nextStep
    self.maxRejections = maxRejections
    self.soak = soak
    self.holdDeadline = holdDeadline
    self.alpha = alpha
  }

  /// The decision on `snapshot`, given what earlier judgements of this step saw.
  package func judge(_ snapshot: GuardSnapshot, progress: GuardProgress) -> GuardDecision {
    let decision = judgeOnce(snapshot, progress: progress)
    guard decision.verdict == .hold, !decision.soaking else { return decision }
    let since = progress.holdingSince ?? snapshot.at
    let held = snapshot.at.timeIntervalSince(since)
    guard held >= holdDeadline else { return decision }
    var halted = decision
    halted.verdict = .halt
    halted.reason =
      "held for \(DurationText.format(held)), past the hold deadline of "
      + "\(DurationText.format(holdDeadline)): \(decision.reason)"
    return halted
  }

  private var cohort: String { "the \(step) % cohort" }

  private func judgeOnce(_ snapshot: GuardSnapshot, progress: GuardProgress) -> GuardDecision {
    if let failure = snapshot.failure {
      return GuardDecision(verdict: .hold, reason: "no data: \(failure)", alpha: alpha)
    }
    if let fired = snapshot.firedChecks.first {
      let first = fired.firstLabels.isEmpty ? "" : " (first: {\(fired.firstLabels)})"
      return GuardDecision(
        verdict: .halt,
        reason: "check fired: \(fired.expression) returned "
          + "\(CountText.of(fired.samples, "sample"))\(first)", alpha: alpha)
    }
    guard !snapshot.instances.isEmpty else {
      return GuardDecision(
        verdict: .hold,
        reason: "no data: no instance running \(asset) reports \(AssetMetricNames.instanceInfo)",
        alpha: alpha)
    }
    let canary = snapshot.instances.filter { $0.position < Double(step) }
    let control = snapshot.instances.filter {
      $0.position >= Double(step) && $0.position < Double(nextStep)
    }
    let silent = canary.filter { !$0.reporting }.map(Self.name)
    let reportingCanary = canary.filter(\.reporting)
    let rejecting = reportingCanary.filter { $0.rejection(of: version) != nil }
    let serving = reportingCanary.filter {
      $0.servedVersion == version && $0.rejection(of: version) == nil
    }
    let onProbation = serving.filter(\.onProbation)
    let controlArm = control.filter {
      $0.reporting && ($0.heldBack || ($0.servedVersion != nil && $0.servedVersion == fromVersion))
    }
    let controlRejecting = controlArm.filter { !$0.rejectedInWindow.subtracting([version]).isEmpty }
    let canaryCounts = GuardDecision.Arm(
      instances: canary.count, reporting: reportingCanary.count, serving: serving.count,
      onProbation: onProbation.count, rejected: rejecting.count)
    let controlCounts = GuardDecision.Arm(
      instances: control.count, reporting: controlArm.count,
      serving: controlArm.filter { $0.servedVersion == fromVersion }.count,
      rejected: controlRejecting.count)
    let (p, test) = canaryTest(
      a: rejecting.count, n1: reportingCanary.count, c: controlRejecting.count,
      n2: controlArm.count)
    var decision = GuardDecision(
      verdict: .hold, reason: "", canary: canaryCounts, control: controlCounts, pValue: p,
      alpha: alpha, test: test, silent: silent)
    let counts =
      "canary: \(rejecting.count) of \(canary.count) instances rejected \(version)"
      + reasonText(rejecting) + "; control \(controlRejecting.count) of \(controlArm.count)"

    // HALT: what fired, the crash-loop guard first (it is the strongest sign).
    if let crashed = rejecting.first(where: { $0.rejection(of: version)?.crashLoop == true }) {
      decision.verdict = .halt
      decision.reason =
        "the crash-loop guard rejected \(version) on \(Self.name(crashed)); \(counts)"
      return decision
    }
    if rejecting.count > maxRejections {
      decision.verdict = .halt
      decision.reason = counts
      if maxRejections > 0 { decision.reason += " (more than --max-rejections \(maxRejections))" }
      return decision
    }
    if let p, p < alpha {
      decision.verdict = .halt
      decision.reason =
        "canary worse than control: \(counts) (Fisher p = \(Self.pText(p)) < alpha \(Self.pText(alpha)))"
      return decision
    }

    // No instance in the step: nothing runs the version, nothing to wait for.
    if canary.isEmpty {
      decision.verdict = .advance
      decision.converged = true
      decision.reason =
        "no instance falls in \(cohort) (0 of \(snapshot.instances.count)): nothing to judge"
      return decision
    }
    // HOLD: silent or not yet converged.
    let waiting = reportingCanary.count - rejecting.count - serving.count
    if !silent.isEmpty || waiting > 0 || !onProbation.isEmpty {
      var clauses = [
        "waiting: \(serving.count) of \(canary.count) in \(cohort) serve \(version)"
      ]
      if !onProbation.isEmpty { clauses.append("\(onProbation.count) on probation") }
      if waiting > 0 { clauses.append("\(waiting) not on \(version) yet") }
      if !silent.isEmpty {
        clauses.append(
          "silent (expected in \(cohort), reporting nothing): \(silent.joined(separator: ", "))")
      }
      decision.reason = clauses.joined(separator: "; ")
      return decision
    }
    decision.converged = true
    let since = progress.convergedSince ?? snapshot.at
    let soaked = snapshot.at.timeIntervalSince(since)
    if soaked < soak {
      decision.soaking = true
      decision.reason =
        "soaking: \(serving.count) of \(canary.count) in \(cohort) serve \(version) past probation; "
        + "\(DurationText.format(soak - soaked)) left"
      return decision
    }
    decision.verdict = .advance
    decision.reason =
      "healthy: \(serving.count) of \(canary.count) in \(cohort) serve \(version) past probation, "
      + "soaked \(DurationText.format(soaked)); \(counts)"
    return decision
  }

  /// The Fisher test when it can say something: its p-value and the sentence.
  private func canaryTest(a: Int, n1: Int, c: Int, n2: Int) -> (Double?, String) {
    if n1 < GuardPlan.minimumArm || n2 < GuardPlan.minimumArm {
      return (
        nil,
        "too few instances for the canary test (\(n1) canary, \(n2) control; fewer than "
          + "\(GuardPlan.minimumArm) per arm): the hard cap decides"
      )
    }
    if FisherExactTest.smallestP(canaryTotal: n1, controlTotal: n2) >= alpha {
      return (
        nil,
        "the canary test cannot fire with \(n1) canary and \(n2) control instances at alpha "
          + "\(Self.pText(alpha)): the hard cap decides"
      )
    }
    let p = FisherExactTest.pGreater(
      canaryRejected: a, canaryTotal: n1, controlRejected: c, controlTotal: n2)
    return (p, "Fisher p = \(Self.pText(p)) (alpha \(Self.pText(alpha)))")
  }

  /// ` ("reason")` of the most common reason among `rejecting`, or nothing.
  private func reasonText(_ rejecting: [GuardInstance]) -> String {
    let reasons = rejecting.compactMap { $0.rejection(of: version)?.reason }.filter {
      !$0.isEmpty
    }
    guard !reasons.isEmpty else { return "" }
    let counts = Dictionary(reasons.map { ($0, 1) }, uniquingKeysWith: +)
    let top = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }!
    return " (\"\(top.key)\")"
  }

  /// `id (scrape target)`, or the id alone.
  static func name(_ instance: GuardInstance) -> String {
    instance.scrapeTarget.isEmpty || instance.scrapeTarget == instance.id
      ? instance.id : "\(instance.id) (\(instance.scrapeTarget))"
  }

  /// A p-value or alpha in four significant digits (`0.0125`, `5.413e-06`).
  package static func pText(_ value: Double) -> String {
    guard value.isFinite else { return "\(value)" }
    if value == 0 { return "0" }
    if value >= 0.0001 {
      var text = String(format: "%.4g", value)
      if text.contains("e") { text = String(format: "%.6f", value) }
      return text
    }
    return String(format: "%.3e", value)
  }
}
