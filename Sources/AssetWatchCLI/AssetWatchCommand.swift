import ArgumentParser
import RemoteAssets

/// The `assetwatch` command: the dashboard by default, plus one-shot commands to drive the engine.
package struct AssetWatchCommand: AsyncParsableCommand {
  package static let configuration = CommandConfiguration(
    commandName: "assetwatch",
    abstract: "Watch and manage remotely refreshed app assets.",
    discussion: """
      Examples:
        assetwatch demo                 run the built-in rollout demo
        assetwatch watch --config assets.json
        assetwatch status --json
      """,
    version: AssetWatchVersion.current,
    subcommands: [
      WatchCommand.self, DemoCommand.self, StatusCommand.self, RefreshCommand.self,
      ResetCommand.self,
      DropCommand.self, RollbackCommand.self, ConfirmCommand.self, RejectCommand.self,
      CheckCommand.self, VerifyCommand.self, WaitCommand.self,
      ServeCommand.self, ReloadCommand.self, FleetCommand.self, TUFClientCommand.self,
      PublishCommand.self,
      IndexCommand.self,
    ],
    defaultSubcommand: WatchCommand.self
  )

  /// Creates the root command (the argument parser fills in the subcommand).
  package init() {}
}
