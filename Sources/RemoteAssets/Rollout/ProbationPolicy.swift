import Foundation

/// How new versions serve on probation: the config's top-level
/// `"probation": { "confirmAfter": "10m", "crashes": 2 }`.
///
/// With a policy, each new version an asset commits from the network is on probation until the
/// app confirms it (``AssetEngine/confirm(_:)``, `assetwatch confirm`), or until `confirmAfter`
/// passes without a rejection. An engine that starts `crashes` times after ending without a
/// clean shutdown while a version was on probation rejects it by itself (crash-loop guard).
/// Without the block (``off``) a version is good once it validates, as before staged rollouts:
/// an app that never confirms must not be rolled back for it.
public struct ProbationPolicy: Sendable, Equatable {
  /// Whether new versions go on probation at all.
  public var enabled: Bool
  /// Confirmed without a word from the app after this long; nil: only a confirmation ends it.
  public var confirmAfter: TimeInterval?
  /// Unclean ends while on probation that make the next start reject the version.
  public var crashes: Int

  /// Creates a policy.
  public init(enabled: Bool, confirmAfter: TimeInterval?, crashes: Int) {
    self.enabled = enabled
    self.confirmAfter = confirmAfter
    self.crashes = crashes
  }

  /// No probation (the default).
  public static let off = ProbationPolicy(enabled: false, confirmAfter: nil, crashes: 2)
}
