import ArgumentParser
import Foundation
import Metrics
import RemoteAssets

/// Opens an engine over a config's cache the way every command does (the link, the demo, `serve`).
enum EngineLauncher {
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
}
