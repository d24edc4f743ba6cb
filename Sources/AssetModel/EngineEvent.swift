import Foundation

/// Engine-wide facts shown in the dashboard header.
public struct EngineInfo: Sendable, Equatable {
  /// The app version the engine runs as.
  public var appVersion: String
  /// The config file path, as given.
  public var configPath: String?
  /// The manifest's version, once fetched.
  public var manifestVersion: String?
  /// Whether automatic refreshes are paused.
  public var autoRefreshPaused: Bool
  /// Since when they are paused (nil while running, or from an engine that does not say).
  public var pausedAt: Date? = nil
  /// The default refresh interval, in seconds (`nil` when none).
  public var refreshEvery: TimeInterval?
  /// Why the cache cannot be written, when it cannot (intact copies are still served).
  public var cacheReadOnly: String? = nil
  /// When the manifest was last checked successfully (fetched, or confirmed by a 304).
  public var manifestCheckedAt: Date? = nil
  /// Why the last manifest fetch failed, one readable sentence (nil after a success); the
  /// previous manifest's targets stay in force meanwhile.
  public var manifestError: String? = nil
  /// How many assets the engine is still reading from its cache at start (nil once all are
  /// loaded): snapshots and events leave them out until they are read.
  public var assetsLoading: Int? = nil
  /// With a `tuf` block: the signed metadata's state (nil without one, and from older peers).
  package var trust: TrustSummary? = nil
  /// This instance's id (the config's `instance`, `ASSETWATCH_INSTANCE`, or one made once per
  /// cache folder): what staged rollouts sample their cohorts by.
  public var instance: String? = nil
  /// The cache folder's size and the config's `cacheLimit` (nil before the engine measured it,
  /// and from older peers).
  package var cache: CacheUsage? = nil

  /// Creates engine info.
  public init(
    appVersion: String, configPath: String? = nil, manifestVersion: String? = nil,
    autoRefreshPaused: Bool = false, refreshEvery: TimeInterval? = nil
  ) {
    self.appVersion = appVersion
    self.configPath = configPath
    self.manifestVersion = manifestVersion
    self.autoRefreshPaused = autoRefreshPaused
    self.refreshEvery = refreshEvery
  }
}

/// A full picture of the engine: the first event every subscriber receives.
public struct EngineSnapshot: Sendable, Equatable {
  /// Engine-wide facts.
  public var info: EngineInfo
  /// Every asset, in config order.
  public var assets: [AssetStatus]
  /// When the snapshot was taken.
  public var at: Date

  /// Creates a snapshot.
  public init(info: EngineInfo, assets: [AssetStatus], at: Date) {
    self.info = info
    self.assets = assets
    self.at = at
  }
}

/// A line for the event log: something the engine did, in plain words.
public struct EngineLogEntry: Sendable, Equatable {
  /// Severity of a log entry.
  public enum Level: String, Sendable, Codable { case info, warning, error }
  /// When it happened.
  public var at: Date
  /// The asset it concerns, if any.
  public var assetID: String?
  /// Severity.
  public var level: Level
  /// One readable sentence ("HTTP 503 Service Unavailable; keeping bundled copy; retry in 47s").
  public var message: String

  /// Creates a log entry.
  public init(at: Date, assetID: String?, level: Level, message: String) {
    self.at = at
    self.assetID = assetID
    self.level = level
    self.message = message
  }
}

/// What the engine publishes through `events()`.
public enum EngineEvent: Sendable, Equatable {
  /// The full state; always first, and again after a subscriber fell behind.
  case snapshot(EngineSnapshot)
  /// One asset's status changed (any field but progress).
  case assetChanged(AssetStatus)
  /// Download progress for one asset (coalesced to ~10 per second).
  case progress(id: String, TransferProgress)
  /// Engine-wide facts changed (manifest version, pause).
  case engineChanged(EngineInfo)
  /// Something happened worth a line in the event pane.
  case log(EngineLogEntry)
}

/// What a user (or the dashboard) asks the engine to do.
package enum AssetCommand: Sendable, Equatable, Hashable {
  /// Refresh one asset now.
  case refresh(id: String)
  /// Refresh every asset now.
  case refreshAll
  /// Replace the cached copy with the bundled one.
  case resetToBundled(id: String)
  /// Delete the cached copy; serve bundled or nothing.
  case dropCache(id: String)
  /// Go back to the previous good generation.
  case rollback(id: String)
  /// Stop automatic refreshes.
  case pauseAutoRefresh
  /// Restart automatic refreshes.
  case resumeAutoRefresh
  /// Re-read and re-hash one asset's cached copy (a damaged copy falls back to the bundled one).
  case verify(id: String)
  /// Re-read and re-hash every cached copy.
  case verifyAll
  /// Confirm the version on probation (it is good).
  case confirm(id: String)
  /// Reject the version served: go back, record `reason`, blocklist its bytes.
  case reject(id: String, reason: String)
}
