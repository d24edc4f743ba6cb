import ArgumentParser
import Foundation
import RemoteAssets

/// `assetwatch status`: a one-shot table or JSON of every asset.
struct StatusCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status",
    abstract: "Print every asset's state once; exit 1 if an essential asset is unusable.",
    discussion: "Example: assetwatch status --refresh --json")

  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var output: JSONOutputOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions

  @Flag(help: "Refresh every asset first.")
  var refresh = false

  @OptionGroup var attaching: AttachOptions

  func run() async throws {
    // A look, not a tidy-up: the sweep would read every entry again (unless refreshing).
    let link = try await EngineLinks.open(
      config: config, attaching: attaching, logging: logging,
      sweep: refresh ? .beforeReturning : .none)
    if refresh { _ = try? await link.refresh([]) }
    let snapshot = try await EngineLinks.snapshot(link)
    await link.close()
    if output.json {
      // An attached engine names its own config; ours is the one given.
      let configPath = snapshot.info.configPath ?? config.file
      try Console.printStreamed { write in
        try StatusOutput.stream(snapshot, configPath: configPath, to: write)
      }
    } else {
      Console.printLines(StatusTable.lines(snapshot))
      if let line = StatusTable.cacheLine(snapshot.info) { Console.printLine(line) }
    }
    if snapshot.assets.contains(where: { $0.essential && !$0.isUsable }) { throw ExitCode(1) }
  }
}
