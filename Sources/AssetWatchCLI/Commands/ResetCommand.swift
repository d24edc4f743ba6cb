import ArgumentParser
import RemoteAssets

/// `assetwatch reset ID ...`: serve the bundled copy (the cached one stays for rollback).
struct ResetCommand: AssetActionCommand {
  static let configuration = CommandConfiguration(
    commandName: "reset", abstract: "Serve the bundled copy instead of the cached one.",
    discussion: "Example: assetwatch reset feature-flags")
  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @OptionGroup(title: "Attach Options") var attaching: AttachOptions
  @Argument(help: "Asset ids.") var ids: [String]
  static let pastTense = "reset to bundled"
  func command(_ id: String) -> AssetCommand { .resetToBundled(id: id) }
}
