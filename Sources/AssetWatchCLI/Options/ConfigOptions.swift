import ArgumentParser
import Foundation
import RemoteAssets

/// Which config a command runs: `--config FILE`, plus the overrides `--cache-dir` and
/// `--app-version`. For every command that reads the config file.
struct ConfigOptions: ParsableArguments {
  @Option(name: .customLong("config"), help: ArgumentHelp("The config file.", valueName: "file"))
  var file: String = "assets.json"

  @OptionGroup var overrides: ConfigOverrideOptions

  /// Loads the config with the overrides applied, or prints every problem (one line each) and
  /// exits with status 2.
  ///
  /// - Throws: `ExitCode(2)` when the file is missing or has problems.
  func loadConfiguration() throws -> EngineConfiguration {
    if !FileManager.default.fileExists(atPath: file), file == "assets.json" {
      Console.printError(
        "assetwatch: no assets.json here; pass --config FILE (see assets.example.json), or run `assetwatch demo`"
      )
      throw ExitCode(2)
    }
    do {
      return try ConfigurationLoader.load(
        path: file, appVersionOverride: overrides.appVersion,
        cacheDirectoryOverride: overrides.cacheDir)
    } catch {
      for line in error.lines { Console.printError(line) }
      throw ExitCode(2)
    }
  }
}
