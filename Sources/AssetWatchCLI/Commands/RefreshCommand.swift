import ArgumentParser
import Foundation
import RemoteAssets

/// `assetwatch refresh [ID ...]`: refresh now and print outcomes.
struct RefreshCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "refresh",
    abstract: "Refresh assets now (all when no ID is given); exit 1 if any refresh failed.",
    discussion: "Example: assetwatch refresh feature-flags --json")

  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Display Options") var output: JSONOutputOptions
  @OptionGroup(title: "Display Options") var logging: LoggingOptions

  @Argument(help: "Asset ids (default: all).")
  var ids: [String] = []

  @OptionGroup(title: "Attach Options") var attaching: AttachOptions

  func run() async throws {
    // The start's sweep runs beside the refresh: its requests go out while the cache is tidied.
    let link = try await EngineLinks.open(
      config: config, attaching: attaching, logging: logging, only: ids.isEmpty ? nil : Set(ids),
      sweep: .alongside)
    try await EngineLinks.requireKnown(ids, link: link)
    var failed = false
    var results: [ControlRefreshResult] = []
    do {
      results = try await link.refresh(ids)
    } catch {
      Console.printError("assetwatch: \(error)")
      failed = true
    }
    await link.close()
    if output.json {
      try Console.printJSON(RefreshOutput(results))
    } else {
      Console.printLines(RefreshOutput.textLines(results))
    }
    if failed || results.contains(where: { $0.error != nil }) { throw ExitCode(1) }
  }
}
