import ArgumentParser

/// Overrides of what a config says: `--cache-dir` and `--app-version`. Part of
/// ``ConfigOptions``; used alone by commands that build their config themselves (`demo`).
struct ConfigOverrideOptions: ParsableArguments {
  @Option(
    name: .customLong("cache-dir"),
    help: ArgumentHelp("Use this cache directory instead of the config's.", valueName: "dir"))
  var cacheDir: String?

  @Option(
    name: .customLong("app-version"),
    help: ArgumentHelp(
      "Run as this app version (a change resets to bundled copies).", valueName: "version"))
  var appVersion: String?
}
