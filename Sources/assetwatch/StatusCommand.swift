import ArgumentParser
import Foundation
import RemoteAssets

/// `assetwatch status`: a one-shot table or JSON of every asset.
struct StatusCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status",
    abstract: "Print every asset's state once; exit 1 if an essential asset is unusable.",
    discussion: "Example: assetwatch status --refresh --json")

  @OptionGroup var common: CommonOptions

  @Flag(help: "Refresh every asset first.")
  var refresh = false

  @Flag(help: "Print JSON (stable fields; see the README).")
  var json = false

  @OptionGroup var attaching: AttachOptions

  func run() async throws {
    if let socket = try attaching.socketPath(common: common) {
      return try await AttachedCommands.status(
        socket: socket, json: json, refreshFirst: refresh, configLabel: common.config)
    }
    let engine = try await common.startEngine()
    if refresh { _ = await engine.refreshAll() }
    let snapshot = await engine.snapshot()
    await engine.shutdown()
    if json {
      print(StatusReport.json(snapshot, configPath: common.config))
    } else {
      print(StatusReport.table(snapshot), terminator: "")
    }
    if snapshot.assets.contains(where: { $0.essential && !$0.isUsable }) { throw ExitCode(1) }
  }
}
