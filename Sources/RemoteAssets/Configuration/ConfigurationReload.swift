/// What a reload (``AssetEngine/apply(_:)``) changed: the assets added, removed and changed, by
/// id. Assets not named here kept their cached copy, transfer and schedule untouched.
public struct ConfigurationReload: Sendable, Equatable {
  /// Assets the new configuration added, in its order.
  public var added: [String]
  /// Assets it no longer names. Their cached copies stay on disk, unconfigured (the disk budget
  /// may evict them, oldest use first, as any unconfigured asset's).
  public var removed: [String]
  /// Assets whose definition changed.
  public var changed: [String]
  /// One line saying the above: `1 added (a), 1 removed (b)`, or `no change`.
  public var summary: String

  /// Creates a result.
  public init(added: [String], removed: [String], changed: [String], summary: String) {
    self.added = added
    self.removed = removed
    self.changed = changed
    self.summary = summary
  }
}

/// Why a reload (``AssetEngine/apply(_:)``) changed nothing. The configuration in force stays.
public enum ConfigurationReloadError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The new configuration differs in settings only a restart can change (the cache folder,
  /// the app version, the manifest or `tuf` block, the instance id, probation, the transfer
  /// limit, `control`); each problem names the field (and its line when known).
  case needsRestart(ConfigurationError)
  /// The engine is shutting down.
  case shuttingDown

  public var description: String {
    switch self {
    case .needsRestart(let error): error.description
    case .shuttingDown: "the engine is shutting down; the configuration was not reloaded"
    }
  }
}
