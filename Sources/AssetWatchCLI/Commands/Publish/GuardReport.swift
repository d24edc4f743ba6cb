import FleetModel
import Foundation
import RemoteAssets

/// What `publish guard` prints: one line per decision and per signed step, as text or (with
/// `--json`) as JSON lines with sorted keys. Every text from outside (Prometheus labels, the
/// signed reason) is sanitized before it is printed.
struct GuardReport: Sendable {
  let json: Bool

  /// One event of the run as a JSON object's members.
  private func emit(_ event: String, at time: Date, _ members: [String: GuardJSON], text: String) {
    if json {
      var object = members
      object["event"] = .string(event)
      object["at"] = .string(ISO8601Time.format(time))
      Console.printLine(GuardJSON.object(object).text)
    } else {
      Console.printLine("\(ISO8601Time.format(time)) \(OutsideText.line(text))")
    }
  }

  /// The plan, once at the start.
  func plan(
    at time: Date, path: String, asset: String, version: String, from: String?, plan: GuardPlan,
    soak: TimeInterval, holdDeadline: TimeInterval, maxRejections: Int, interval: TimeInterval,
    start: String, dryRun: Bool
  ) {
    let steps = plan.steps.map { "\($0) %" }.joined(separator: " -> ")
    emit(
      "plan", at: time,
      [
        "path": .string(path), "asset": .string(asset), "version": .string(version),
        "from": from.map(GuardJSON.string) ?? .null,
        "steps": .array(plan.steps.map { .number(Double($0)) }),
        "soakSeconds": .number(soak), "holdDeadlineSeconds": .number(holdDeadline),
        "maxRejections": .number(Double(maxRejections)), "alpha": .number(plan.alpha),
        "intervalSeconds": .number(interval), "start": .string(start), "dryRun": .bool(dryRun),
      ],
      text: "\(dryRun ? "dry run: " : "")guard \(path) (asset \(asset)) \(version)"
        + "\(from.map { " over \($0)" } ?? ""): \(steps); soak \(DurationText.format(soak)), "
        + "hold deadline \(DurationText.format(holdDeadline)), max rejections \(maxRejections), "
        + "alpha \(GuardJudgement.pText(plan.alpha)), every \(DurationText.format(interval)); "
        + start)
  }

  /// One judgement.
  func decision(_ decision: GuardDecision, step: Int, at time: Date) {
    func arm(_ arm: GuardDecision.Arm) -> GuardJSON {
      .object([
        "instances": .number(Double(arm.instances)), "reporting": .number(Double(arm.reporting)),
        "serving": .number(Double(arm.serving)), "onProbation": .number(Double(arm.onProbation)),
        "rejected": .number(Double(arm.rejected)),
      ])
    }
    let counts =
      "canary \(decision.canary.rejected)/\(decision.canary.instances) rejected, "
      + "control \(decision.control.rejected)/\(decision.control.reporting); \(decision.test)"
    emit(
      "decision", at: time,
      [
        "step": .number(Double(step)), "verdict": .string(decision.verdict.rawValue),
        "reason": .string(decision.reason), "soaking": .bool(decision.soaking),
        "canary": arm(decision.canary), "control": arm(decision.control),
        "p": decision.pValue.map(GuardJSON.number) ?? .null, "alpha": .number(decision.alpha),
        "test": .string(decision.test), "silent": .array(decision.silent.map(GuardJSON.string)),
      ],
      text: "\(decision.verdict.rawValue) \(step) %: \(decision.reason)"
        + (decision.test.isEmpty ? "" : " [\(counts)]"))
  }

  /// A step (or halt) signed, and uploaded when asked.
  func signed(
    step: Int, verdict: String, targetsVersion: Int64, uploaded: Bool, at time: Date
  ) {
    emit(
      "signed", at: time,
      [
        "step": .number(Double(step)), "verdict": .string(verdict),
        "targetsVersion": .number(Double(targetsVersion)), "uploaded": .bool(uploaded),
      ],
      text: "SIGNED \(step) % (\(verdict), targets version \(targetsVersion))"
        + (uploaded ? ", uploaded" : ""))
  }

  /// The end of the run: `complete`, `halted`, or a note (not staged, dry run).
  func end(_ outcome: String, reason: String, at time: Date) {
    emit(
      "end", at: time, ["outcome": .string(outcome), "reason": .string(reason)],
      text: "\(outcome.uppercased()): \(reason)")
  }

  /// A note (the target changed under the guard, an upload retried).
  func note(_ text: String, at time: Date) {
    emit("note", at: time, ["note": .string(text)], text: text)
  }
}
