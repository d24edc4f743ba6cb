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
    if let socket = try attaching.socketPath(config: config) {
      return try await AttachedCommands.refresh(socket: socket, ids: ids, json: output.json)
    }
    let engine = try await EngineLauncher.start(
      config, logging: logging, only: ids.isEmpty ? nil : Set(ids))
    let results: [(id: String, outcome: RefreshOutcome)]
    if ids.isEmpty {
      results = await engine.refreshAll()
    } else {
      try await EngineLauncher.requireKnown(ids, engine: engine)
      var list: [(String, RefreshOutcome)] = []
      for id in ids { list.append((id, await engine.refresh(id))) }
      results = list
    }
    let statuses = await engine.statuses()
    await engine.shutdown()
    func version(_ id: String) -> String? { statuses.first { $0.id == id }?.version }
    if output.json {
      try Console.printJSON(
        RefreshOutput(
          results: results.map {
            RefreshOutput.Result(id: $0.id, outcome: $0.outcome, version: version($0.id))
          }))
    } else {
      for r in results {
        var line = "\(r.id)  \(r.outcome.word)"
        if case .failed(let e) = r.outcome {
          line += "  \(e.message)"
        } else if let v = version(r.id) {
          line += "  \(v)"
        }
        Console.printLine(line)
      }
    }
    if results.contains(where: { if case .failed = $0.outcome { true } else { false } }) {
      throw ExitCode(1)
    }
  }
}
