import AssetModel
import Foundation

/// An asset as the target decisions (``ManifestCore``, ``TrustCore``) read and change it: the
/// fields of its record a manifest or signed target sets, and the facts about it they depend on.
/// An event takes it as the record holds it; ``ManifestAction/setTarget(_:)`` gives it back
/// changed, and the engine writes those fields into the record.
struct TargetedAsset: Sendable, Equatable {
  /// The asset.
  var id: String
  /// Its definition as the targets amended it (URL, size, hash, chunk index, headers).
  var definition: AssetDefinition
  /// Why its URL was refused: while set, a check fails with it and nothing is fetched.
  var urlRefusal: FetchError?
  /// Where this instance stands in a staged rollout of the target.
  var rolloutStage: RolloutStage?
  /// Why nothing is fetched although the target is known (held back with nothing to fetch).
  var holdReason: String?
  /// The target's version, as shown.
  var targetVersion: String?
  /// The generation served (a target naming its bytes names its version).
  var current: Generation?
  /// When its next check is due.
  var nextAttemptAt: Date?
  /// Whether a check of it is under way (a new target does not make it due then).
  var inFlight: Bool
  /// Whether automatic refreshes are blocked for it (after a 401 or 403).
  var autoRefreshBlocked: Bool

  /// What a target decides of this asset; a change makes a refresh due
  /// (``AssetRecord/targetFacts``).
  var targetFacts: [String?] {
    [
      definition.remote?.absoluteString, definition.sha256,
      definition.expectedSize.map(String.init), targetVersion,
    ]
  }
}

extension AssetRecord {
  /// The record as the target decisions see it (`inFlight`: a check of it is under way).
  func targeted(inFlight: Bool) -> TargetedAsset {
    TargetedAsset(
      id: definition.id, definition: definition, urlRefusal: urlRefusal,
      rolloutStage: rolloutStage, holdReason: holdReason, targetVersion: targetVersion,
      current: entry.current, nextAttemptAt: entry.nextAttemptAt, inFlight: inFlight,
      autoRefreshBlocked: autoRefreshBlocked)
  }

  /// Takes what a target decision set (``ManifestAction/setTarget(_:)``).
  mutating func take(_ target: TargetedAsset) {
    definition = target.definition
    urlRefusal = target.urlRefusal
    rolloutStage = target.rolloutStage
    holdReason = target.holdReason
    targetVersion = target.targetVersion
    entry.current?.version = target.current?.version
    entry.nextAttemptAt = target.nextAttemptAt
  }
}
