import Foundation

/// Where an asset stands in a staged rollout of its target: the manifest entry's or the signed
/// target's `"rollout": { "percent": P, "from": {...} }`. Absent when the target is not staged
/// (no `rollout`, `P` of 100, or a `"critical": true` target).
package struct RolloutStage: Sendable, Equatable, Codable {
  /// The share of instances that take the staged version, 0 to 100 (0 halts the rollout).
  package var percent: Double
  /// The staged (new) version, as the target names it.
  package var version: String?
  /// Whether this instance is outside the cohort: it serves `from` and its target is
  /// `from.version`.
  package var heldBack: Bool

  /// Creates a stage.
  package init(percent: Double, version: String?, heldBack: Bool) {
    self.percent = percent
    self.version = version
    self.heldBack = heldBack
  }

  private enum CodingKeys: String, CodingKey { case percent, version, heldBack }

  /// Decodes `{"percent":P, "version":…, "heldBack":…}`; a percent from another process is
  /// brought into 0...100 (not a number: 0).
  ///
  /// - Throws: `DecodingError` when a key is missing or has the wrong type.
  package init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let percent = try c.decode(Double.self, forKey: .percent)
    self.init(
      percent: percent.isNaN ? 0 : min(max(0, percent), 100),
      version: try c.decodeIfPresent(String.self, forKey: .version),
      heldBack: try c.decode(Bool.self, forKey: .heldBack))
  }

  /// "held back (rollout 10 %)", or "in the 10 % cohort".
  package var summary: String {
    let p = RolloutStage.percentText(percent)
    return heldBack ? "held back (rollout \(p) %)" : "in the \(p) % cohort"
  }

  /// `10`, `2.5`: whole percents without a fraction.
  package static func percentText(_ percent: Double) -> String {
    let shown = percent.isNaN ? 0 : min(max(0, percent), 100)
    return shown == shown.rounded() ? String(Int(shown)) : String(format: "%.1f", shown)
  }
}

/// A version the engine serves on probation: new bytes that the app has not confirmed yet.
/// ``AssetStatus/probation`` is nil once confirmed (by the app, a command, or its time running
/// out without a rejection).
package struct AssetProbation: Sendable, Equatable, Codable {
  /// The version on probation (nil when the target names none).
  package var version: String?
  /// Its SHA-256.
  package var sha256: String
  /// When it began serving.
  package var since: Date
  /// When it is confirmed without a word from the app; nil: only a confirmation ends it.
  package var until: Date?
  /// Starts of the engine that ended without a clean shutdown while it was on probation.
  package var crashes: Int

  /// Creates a probation.
  package init(version: String?, sha256: String, since: Date, until: Date?, crashes: Int = 0) {
    self.version = version
    self.sha256 = sha256
    self.since = since
    self.until = until
    self.crashes = crashes
  }
}

/// A version the app (or a health check, or the crash-loop guard) rejected: the engine went
/// back to the previous good copy and does not fetch these bytes again until the target changes.
package struct AssetRejection: Sendable, Equatable, Codable {
  /// The rejected version (nil when the target named none).
  package var version: String?
  /// The rejected bytes' SHA-256 (the blocklist key).
  package var sha256: String
  /// Why, as given (sanitized).
  package var reason: String
  /// When.
  package var at: Date

  /// Creates a rejection.
  package init(version: String?, sha256: String, reason: String, at: Date) {
    self.version = version
    self.sha256 = sha256
    self.reason = reason
    self.at = at
  }
}

extension AssetStatus {
  /// The staged-rollout facts of this asset in a few words, for tables and panes:
  /// `rejected v2: reason`, `held back (rollout 10 %)`, `on probation`, `in the 10 % cohort`;
  /// nil when none applies.
  package var rolloutNote: String? {
    var parts: [String] = []
    if let rejected {
      parts.append(
        "rejected \(rejected.version ?? String(rejected.sha256.prefix(8))): \(rejected.reason)")
    }
    if let rollout { parts.append(rollout.summary) }
    if probation != nil { parts.append("on probation") }
    return parts.isEmpty ? nil : parts.joined(separator: ", ")
  }
}
