import ArgumentParser
import Testing

@testable import AssetWatchCLI

/// `--readonly` means one thing in the dashboard and another for `serve`; each command's help
/// says its own.
@Suite struct ReadonlyHelpTests {
  private func help(_ command: any ParsableCommand.Type) -> String {
    AssetWatchCommand.helpMessage(for: command, columns: 1000)
  }

  @Test func theDashboardCommandsNameTheKeysTheyHide() {
    for command: any ParsableCommand.Type in [WatchCommand.self, DemoCommand.self] {
      let text = help(command)
      #expect(text.contains("b (reset), d (drop), u (rollback), x (reject)"), "\(text)")
      #expect(!text.contains("control socket (refresh"), "\(text)")
    }
  }

  @Test func serveSaysItsControlSocketRefusesEveryCommand() {
    let text = help(ServeCommand.self)
    #expect(text.contains("Refuse every command on the control socket"), "\(text)")
    #expect(!text.contains("Hide the"), "\(text)")
  }
}
