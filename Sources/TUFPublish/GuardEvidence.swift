import AssetJSON
import Foundation

/// What `assetwatch publish guard` signs into a target's `custom.rollout.guard` with every step
/// and halt: which bytes it judged, the plan, the step signed, the verdict and the evidence it
/// rests on. The next run of the guard reads it back and continues from it.
///
/// Canonical JSON has no floats, so the p-value and alpha are decimal text; times are TUF's
/// `YYYY-MM-DDTHH:MM:SSZ`. python-tuf reads `custom` as opaque JSON.
package struct GuardEvidence: Sendable, Equatable {
  /// The SHA-256 of the target's bytes the rollout is of: other bytes start over.
  package var sha256: String
  /// When the guard started this rollout.
  package var started: Date
  /// The planned steps, in percent.
  package var steps: [Int]
  /// The percent this decision signed (0 for a halt).
  package var step: Int
  /// `start`, `advance` or `halt`.
  package var verdict: String
  /// When it was decided.
  package var at: Date
  /// One sentence: what decided.
  package var reason: String
  /// The canary's counts at the decision (none for a start).
  package var canary: Counts?
  /// The control's counts at the decision.
  package var control: Counts?
  /// The Fisher p-value, as text, when computed.
  package var pValue: String?
  /// The alpha it was held against, as text.
  package var alpha: String?
  /// The instances expected in the step that reported nothing.
  package var silent: [String]

  /// An arm's counts.
  package struct Counts: Sendable, Equatable {
    /// Instances in the arm by id.
    package var instances: Int
    /// Those reporting.
    package var reporting: Int
    /// Those serving the version judged.
    package var serving: Int
    /// Those with a rejection.
    package var rejected: Int

    /// Creates counts.
    package init(instances: Int, reporting: Int, serving: Int, rejected: Int) {
      self.instances = instances
      self.reporting = reporting
      self.serving = serving
      self.rejected = rejected
    }

    var json: JSONValue {
      .object([
        "instances": .integer(Int64(instances)), "reporting": .integer(Int64(reporting)),
        "serving": .integer(Int64(serving)), "rejected": .integer(Int64(rejected)),
      ])
    }

    init?(json: JSONValue?) {
      guard let json, let instances = json["instances"]?.integerValue,
        let reporting = json["reporting"]?.integerValue,
        let serving = json["serving"]?.integerValue,
        let rejected = json["rejected"]?.integerValue
      else { return nil }
      self.init(
        instances: Int(clamping: instances), reporting: Int(clamping: reporting),
        serving: Int(clamping: serving), rejected: Int(clamping: rejected))
    }
  }

  /// Creates evidence.
  package init(
    sha256: String, started: Date, steps: [Int], step: Int, verdict: String, at: Date,
    reason: String, canary: Counts? = nil, control: Counts? = nil, pValue: String? = nil,
    alpha: String? = nil, silent: [String] = []
  ) {
    self.sha256 = sha256
    self.started = started
    self.steps = steps
    self.step = step
    self.verdict = verdict
    self.at = at
    self.reason = reason
    self.canary = canary
    self.control = control
    self.pValue = pValue
    self.alpha = alpha
    self.silent = silent
  }

  /// The longest reason kept, in characters (the metadata stays small).
  static let maximumReason = 512
  /// The most silent instances named.
  static let maximumSilent = 50

  /// The `custom.rollout.guard` object.
  package var json: JSONValue {
    var object: [String: JSONValue] = [
      "sha256": .string(sha256), "started": .string(TUFTime.format(started)),
      "steps": .array(steps.map { .integer(Int64($0)) }), "step": .integer(Int64(step)),
      "verdict": .string(verdict), "at": .string(TUFTime.format(at)),
      "reason": .string(Self.clean(reason, maxLength: Self.maximumReason)),
    ]
    if let canary { object["canary"] = canary.json }
    if let control { object["control"] = control.json }
    if let pValue { object["p"] = .string(pValue) }
    if let alpha { object["alpha"] = .string(alpha) }
    if !silent.isEmpty {
      object["silent"] = .array(
        silent.prefix(Self.maximumSilent).map { .string(Self.clean($0, maxLength: 200)) })
    }
    return .object(object)
  }

  /// Reads `custom.rollout.guard` back; nil when absent or not the guard's shape.
  package init?(json: JSONValue?) {
    guard let json, json.objectValue != nil, let sha = json["sha256"]?.stringValue,
      let started = json["started"]?.stringValue.flatMap(TUFTime.parse),
      let step = json["step"]?.integerValue, let verdict = json["verdict"]?.stringValue,
      let at = json["at"]?.stringValue.flatMap(TUFTime.parse)
    else { return nil }
    self.init(
      sha256: sha, started: started,
      steps: json["steps"]?.arrayValue?.compactMap { $0.integerValue.map { Int(clamping: $0) } }
        ?? [],
      step: Int(clamping: step), verdict: verdict, at: at,
      reason: json["reason"]?.stringValue ?? "", canary: Counts(json: json["canary"]),
      control: Counts(json: json["control"]), pValue: json["p"]?.stringValue,
      alpha: json["alpha"]?.stringValue,
      silent: json["silent"]?.arrayValue?.compactMap(\.stringValue) ?? [])
  }

  /// Control characters out (the metadata's text is printed later), cut to `maxLength`.
  static func clean(_ text: String, maxLength: Int) -> String {
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars.prefix(maxLength) {
      out.append(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) ? " " : scalar)
    }
    return String(out)
  }
}
