import ArgumentParser
import Foundation
import Logging
import RemoteAssets

/// Options every command takes.
struct CommonOptions: ParsableArguments {
  @Option(name: .long, help: "The config file.")
  var config: String = "assets.json"

  @Option(name: .customLong("cache-dir"), help: "Use this cache directory instead of the config's.")
  var cacheDir: String?

  @Option(
    name: .customLong("app-version"),
    help: "Run as this app version (a change resets to bundled copies).")
  var appVersion: String?

  @Flag(name: .customLong("no-color"), help: "No colors (NO_COLOR is also respected).")
  var noColor = false

  @Flag(help: "One line per event instead of the dashboard.")
  var plain = false

  @Flag(help: "Hide the destructive actions (reset, drop, rollback).")
  var readonly = false

  @Flag(help: "Log what the engine does to stderr.")
  var verbose = false

  /// Loads the config, or prints every problem (one line each) and exits with status 2.
  func loadConfiguration() throws -> EngineConfiguration {
    if !FileManager.default.fileExists(atPath: config), config == "assets.json" {
      printError(
        "assetwatch: no assets.json here; pass --config FILE (see assets.example.json), or run `assetwatch demo`"
      )
      throw ExitCode(2)
    }
    do {
      return try ConfigurationLoader.load(
        path: config, appVersionOverride: appVersion, cacheDirectoryOverride: cacheDir)
    } catch {
      for line in error.lines { printError(line) }
      throw ExitCode(2)
    }
  }

  /// A logger for the engine: quiet unless `--verbose`.
  func makeLogger() -> Logger {
    var logger = Logger(label: "assetwatch") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = verbose ? .debug : .critical
    return logger
  }

  /// Loads the config and starts an engine from the disk cache (no network).
  func startEngine() async throws -> AssetEngine {
    try await startEngine(configuration: try loadConfiguration())
  }

  /// Opens the cache of `configuration` and starts an engine from it (no network); a cache that
  /// cannot be opened is reported on stderr with exit status 1.
  func startEngine(configuration: EngineConfiguration) async throws -> AssetEngine {
    let engine: AssetEngine
    do {
      engine = try AssetEngine(configuration: configuration, logger: makeLogger())
    } catch {
      printError(
        "assetwatch: cannot open the cache \(configuration.cacheDirectory.path): \(error)")
      throw ExitCode(1)
    }
    await engine.start()
    return engine
  }
}

/// Writes one line to stderr.
func printError(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}
