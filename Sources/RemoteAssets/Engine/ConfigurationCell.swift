import Synchronization

/// The configuration in force, readable from any isolation (``AssetEngine/configuration`` is
/// `nonisolated`) and replaced whole by a reload (``AssetEngine/apply(_:)``), which runs on the
/// engine's actor. A `Mutex` makes each read see one whole configuration, never a mix.
final class ConfigurationCell: Sendable {
  private let value: Mutex<EngineConfiguration>

  init(_ configuration: EngineConfiguration) { value = Mutex(configuration) }

  /// The configuration now.
  var current: EngineConfiguration { value.withLock { $0 } }

  /// Replaces the configuration.
  func replace(with configuration: EngineConfiguration) { value.withLock { $0 = configuration } }
}
