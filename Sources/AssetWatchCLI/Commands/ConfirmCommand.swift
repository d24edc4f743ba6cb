import ArgumentParser
import RemoteAssets

/// `assetwatch confirm ID ...`: the version on probation is good.
struct ConfirmCommand: AssetActionCommand {
  static let configuration = CommandConfiguration(
    commandName: "confirm", abstract: "Confirm the version an asset serves on probation.",
    discussion: """
      With a "probation" block in the config, a new version serves on probation until \
      the app confirms it (or its confirmAfter time passes). Confirmed, no crash or time \
      rejects it any more. With nothing on probation, nothing changes.

      Example: assetwatch confirm feature-flags
      """)
  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @OptionGroup(title: "Attach Options") var attaching: AttachOptions
  @Argument(help: "Asset ids.") var ids: [String]
  static let pastTense = "confirmed"
  func command(_ id: String) -> AssetCommand { .confirm(id: id) }
}
