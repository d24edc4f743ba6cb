import ArgumentParser
import RemoteAssets

/// `assetwatch reject ID ... --reason TEXT`: the version served breaks the app; go back.
struct RejectCommand: AssetActionCommand {
  static let configuration = CommandConfiguration(
    commandName: "reject", abstract: "Reject the version an asset serves and go back.",
    discussion: """
      Goes back to the previous good copy (or the bundled one), records the reason, \
      and blocklists the rejected bytes by SHA-256: they are not fetched again until \
      the target changes.

      Made for a health-check script beside the app (with --attach, the app's own \
      engine).

      Example: assetwatch reject feature-flags --reason "checkout fails"
      """)
  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions
  @OptionGroup(title: "Attach Options") var attaching: AttachOptions
  @Option(help: "Why (shown in status, the dashboard and the event log).") var reason: String
  @Argument(help: "Asset ids.") var ids: [String]
  static let pastTense = "rejected"
  func command(_ id: String) -> AssetCommand { .reject(id: id, reason: reason) }
}
