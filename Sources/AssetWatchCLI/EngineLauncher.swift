import ArgumentParser
import Foundation
import Metrics
import RemoteAssets

/// Starts an engine the way every command does, and checks the ids a command was given.
enum EngineLauncher {
  /// Opens the cache of `configuration` and starts an engine from it (no network).
  ///
  /// - Parameters:
  ///   - only: the assets a command is about; nil loads every asset. A command about one asset
  ///     of thousands reads one entry.
  ///   - sweeping: whether the start sweeps stale partials and unreferenced blobs (not for a
  ///     one-shot look such as `status`).
  /// - Throws: `ExitCode(1)` after printing the reason when the cache cannot be opened.
  static func start(
    _ configuration: EngineConfiguration, logging: LoggingOptions, only: Set<String>? = nil,
    sweeping: Bool = true
  ) async throws -> AssetEngine {
    let engine = try await open(configuration, logging: logging)
    await engine.start(only: only, sweeping: sweeping)
    return engine
  }

  /// Opens the cache of `configuration` and makes an engine over it, not started (nothing read
  /// yet); says so on standard error when the cache is read-only.
  ///
  /// - Throws: `ExitCode(1)` after printing the reason when the cache cannot be opened.
  static func open(
    _ configuration: EngineConfiguration, logging: LoggingOptions,
    metricsFactory: (any MetricsFactory)? = nil
  ) async throws -> AssetEngine {
    let engine: AssetEngine
    do {
      engine = try AssetEngine(
        configuration: configuration, logger: logging.makeLogger(), metricsFactory: metricsFactory)
    } catch {
      Console.printError(
        "assetwatch: cannot open the cache \(configuration.cacheDirectory.path): \(error)")
      throw ExitCode(1)
    }
    if let note = await engine.info().cacheReadOnly {
      Console.printError(
        "assetwatch: \(TerminalText.sanitize(note)); serving intact copies, saving nothing")
    }
    return engine
  }

  /// Loads the config and starts an engine from its cache (no network).
  ///
  /// - Throws: `ExitCode(2)` for a config problem, `ExitCode(1)` for a cache that cannot be opened.
  static func start(
    _ config: ConfigOptions, logging: LoggingOptions, only: Set<String>? = nil,
    sweeping: Bool = true
  ) async throws -> AssetEngine {
    try await start(
      try config.loadConfiguration(), logging: logging, only: only, sweeping: sweeping)
  }

  /// Shuts `engine` down and fails with a readable message when an id is not in the config.
  ///
  /// - Throws: `ExitCode(1)` for the first unknown id.
  static func requireKnown(_ ids: [String], engine: AssetEngine) async throws {
    let known = Set(await engine.statuses().map(\.id))
    for id in ids where !known.contains(id) {
      Console.printError("assetwatch: no asset named \"\(id)\" in the config")
      await engine.shutdown()
      throw ExitCode(1)
    }
  }
}
