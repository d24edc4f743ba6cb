import ArgumentParser
import RemoteAssets

/// `assetwatch rollback ID ...`: go back to the previous good generation.
struct RollbackCommand: AssetActionCommand {
  static let configuration = CommandConfiguration(
    commandName: "rollback", abstract: "Go back to the previous good generation.",
    discussion: """
      Goes back to the previous copy the cache names now, after checking it, and \
      prints the versions it went from and to.

      If another process changes the asset's copy meanwhile, nothing is changed and it \
      exits 1 saying so: run it again.

      Example: assetwatch rollback feature-flags
      """)
  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @OptionGroup(title: "Attach Options") var attaching: AttachOptions
  @Argument(help: "Asset ids.") var ids: [String]
  static let pastTense = "rolled back"
  func command(_ id: String) -> AssetCommand { .rollback(id: id) }
}
