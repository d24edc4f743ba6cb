import ArgumentParser
import RemoteAssets

/// `assetwatch drop ID ...`: delete cached copies; serve the bundled copy or nothing.
struct DropCommand: AssetActionCommand {
  static let configuration = CommandConfiguration(
    commandName: "drop", abstract: "Delete cached copies; serve the bundled copy or nothing.",
    discussion: "Example: assetwatch drop model")
  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @OptionGroup(title: "Attach Options") var attaching: AttachOptions
  @Argument(help: "Asset ids.") var ids: [String]
  static let pastTense = "cache dropped"
  func command(_ id: String) -> AssetCommand { .dropCache(id: id) }
}
