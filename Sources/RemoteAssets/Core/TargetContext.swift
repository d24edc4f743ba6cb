import Foundation

/// What a target decision reads of the engine besides the asset: the configuration in force,
/// whether auto-refresh runs, and the time of the event.
struct TargetContext: Sendable, Equatable {
  /// The configuration in force.
  var configuration: EngineConfiguration
  /// Whether auto-refresh runs (a new target is then due at once).
  var autoRefresh: Bool
  /// The wall clock when the event happened.
  var now: Date

  /// The interval between checks of the manifest or signed metadata (the defaults' `refresh`).
  var interval: TimeInterval {
    configuration.assetDefaults.refreshSeconds ?? AssetDefaults.standardRefreshSeconds
  }
}
