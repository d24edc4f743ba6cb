import AssetModel
import Foundation

/// A target's staged rollout as the publisher writes it: a manifest entry's (or a signed
/// target's `custom`) `"rollout": { "percent": P, "from": { "version", "url", "size", "sha256" } }`.
package struct RolloutSpec: Sendable, Equatable, Codable {
  /// What an instance outside the cohort serves (the version before): the same four facts as
  /// a target.
  package typealias From = TargetFacts

  /// The share of instances that take the new version, 0 to 100 (0 halts the rollout).
  package var percent: Double
  /// The version before; without it an instance outside the cohort keeps what it serves.
  package var from: From?

  package init(percent: Double, from: From?) {
    self.percent = percent
    self.from = from
  }

  /// Why these fields cannot be used (nil when they can), naming the field.
  package func problem() -> String? {
    guard percent.isFinite, (0...100).contains(percent) else {
      return "rollout.percent must be between 0 and 100"
    }
    if let size = from?.size, !ConfigLimits.size.contains(size) {
      return
        "rollout.from.size is out of range (must be \(ConfigLimits.describe(ConfigLimits.size)))"
    }
    if let sha = from?.sha256, SHA256Text.normalized(sha) == nil {
      return "rollout.from.sha256 is not 64 hex digits"
    }
    return nil
  }
}

/// What a target names: URL (as written, resolved by the caller), size, SHA-256, version.
package struct TargetFacts: Sendable, Equatable, Codable {
  package var url: String?
  package var size: Int64?
  package var sha256: String?
  package var version: String?

  package init(url: String?, size: Int64?, sha256: String?, version: String?) {
    self.url = url
    self.size = size
    self.sha256 = sha256
    self.version = version
  }
}

/// What an instance takes of a target with a staged rollout (pure; ``Cohort`` decides).
package enum RolloutChoice: Sendable, Equatable {
  /// The target itself; `stage` when the rollout is staged (the instance is in the cohort).
  case target(TargetFacts, stage: RolloutStage?)
  /// Held back: the rollout's `from` (which names a URL).
  case from(TargetFacts, stage: RolloutStage)
  /// Held back with no `from` named, or one without a URL: keep serving what it serves, fetch
  /// nothing.
  case hold(stage: RolloutStage)

  /// The choice for `instance` and `asset`. A `critical` target, no rollout, or 100 % take the
  /// target unstaged. The cohort is sampled by the target's version (its SHA-256 when it names
  /// none).
  package static func choose(
    _ target: TargetFacts, rollout: RolloutSpec?, critical: Bool, instance: String,
    asset: String
  ) -> RolloutChoice {
    guard let rollout, !critical, rollout.percent < 100 else {
      return .target(target, stage: nil)
    }
    let key = target.version ?? target.sha256 ?? target.url ?? ""
    if Cohort.includes(percent: rollout.percent, instance: instance, asset: asset, version: key) {
      return .target(
        target,
        stage: RolloutStage(percent: rollout.percent, version: target.version, heldBack: false))
    }
    let stage = RolloutStage(percent: rollout.percent, version: target.version, heldBack: true)
    // A `from` without a URL names nothing to fetch (the asset's own URL serves the target's
    // bytes, not the `from`'s): hold what is served.
    guard let from = rollout.from, from.url != nil else {
      return .hold(stage: stage)
    }
    return .from(from, stage: stage)
  }
}
