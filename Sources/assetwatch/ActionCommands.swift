import ArgumentParser
import Foundation
import RemoteAssets

/// `assetwatch refresh [ID ...]`: refresh now and print outcomes.
struct RefreshCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "refresh",
    abstract: "Refresh assets now (all when no ID is given); exit 1 if any refresh failed.",
    discussion: "Example: assetwatch refresh feature-flags --json")

  @OptionGroup var common: CommonOptions

  @Argument(help: "Asset ids (default: all).")
  var ids: [String] = []

  @Flag(help: "Print JSON (stable fields; see the README).")
  var json = false

  @OptionGroup var attaching: AttachOptions

  func run() async throws {
    if let socket = try attaching.socketPath(common: common) {
      return try await AttachedCommands.refresh(socket: socket, ids: ids, json: json)
    }
    let engine = try await common.startEngine()
    let results: [(id: String, outcome: RefreshOutcome)]
    if ids.isEmpty {
      results = await engine.refreshAll()
    } else {
      try await checkIDs(ids, engine: engine)
      var list: [(String, RefreshOutcome)] = []
      for id in ids { list.append((id, await engine.refresh(id))) }
      results = list
    }
    let statuses = await engine.statuses()
    await engine.shutdown()
    func version(_ id: String) -> String? { statuses.first { $0.id == id }?.version }
    if json {
      let items: [[String: Any]] = results.map { r in
        var error: Any = NSNull()
        if case .failed(let e) = r.outcome { error = e.message }
        return [
          "id": r.id, "outcome": r.outcome.word, "version": version(r.id) ?? NSNull(),
          "error": error,
        ]
      }
      print(StatusReport.jsonText(["results": items]))
    } else {
      for r in results {
        var line = "\(r.id)  \(r.outcome.word)"
        if case .failed(let e) = r.outcome {
          line += "  \(e.message)"
        } else if let v = version(r.id) {
          line += "  \(v)"
        }
        print(line)
      }
    }
    if results.contains(where: { if case .failed = $0.outcome { true } else { false } }) {
      throw ExitCode(1)
    }
  }
}

/// Fails with a readable message when an id is unknown.
func checkIDs(_ ids: [String], engine: AssetEngine) async throws {
  let known = Set(await engine.statuses().map(\.id))
  for id in ids where !known.contains(id) {
    printError("assetwatch: no asset named \"\(TerminalText.sanitize(id))\" in the config")
    await engine.shutdown()
    throw ExitCode(1)
  }
}

/// Shared body of `reset`, `drop` and `rollback`: one engine command per id.
protocol AssetActionCommand: AsyncParsableCommand {
  var common: CommonOptions { get }
  var ids: [String] { get }
  static var pastTense: String { get }
  static func act(_ engine: AssetEngine, _ id: String) async throws
}

extension AssetActionCommand {
  func run() async throws {
    let engine = try await common.startEngine()
    try await checkIDs(ids, engine: engine)
    var failed = false
    for id in ids {
      do {
        try await Self.act(engine, id)
        print("\(id)  \(Self.pastTense)")
      } catch {
        printError("assetwatch: \(error)")
        failed = true
      }
    }
    await engine.shutdown()
    if failed { throw ExitCode(1) }
  }
}

/// `assetwatch reset ID ...`.
struct ResetCommand: AssetActionCommand {
  static let configuration = CommandConfiguration(
    commandName: "reset", abstract: "Serve the bundled copy instead of the cached one.",
    discussion: "Example: assetwatch reset feature-flags")
  @OptionGroup var common: CommonOptions
  @Argument(help: "Asset ids.") var ids: [String]
  static let pastTense = "reset to bundled"
  static func act(_ engine: AssetEngine, _ id: String) async throws {
    try await engine.resetToBundled(id)
  }
}

/// `assetwatch drop ID ...`.
struct DropCommand: AssetActionCommand {
  static let configuration = CommandConfiguration(
    commandName: "drop", abstract: "Delete cached copies; serve the bundled copy or nothing.",
    discussion: "Example: assetwatch drop model")
  @OptionGroup var common: CommonOptions
  @Argument(help: "Asset ids.") var ids: [String]
  static let pastTense = "cache dropped"
  static func act(_ engine: AssetEngine, _ id: String) async throws {
    try await engine.dropCache(id)
  }
}

/// `assetwatch rollback ID ...`.
struct RollbackCommand: AssetActionCommand {
  static let configuration = CommandConfiguration(
    commandName: "rollback", abstract: "Go back to the previous good generation.",
    discussion: "Example: assetwatch rollback feature-flags")
  @OptionGroup var common: CommonOptions
  @Argument(help: "Asset ids.") var ids: [String]
  static let pastTense = "rolled back"
  static func act(_ engine: AssetEngine, _ id: String) async throws {
    try await engine.rollback(id)
  }
}

/// `assetwatch check`: validate the config and print every problem.
struct CheckCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check", abstract: "Validate the config and print every problem (exit 2 if any).",
    discussion: "Example: assetwatch check --config assets.example.json")
  @OptionGroup var common: CommonOptions

  func run() async throws {
    let configuration = try common.loadConfiguration()
    print("\(common.config): OK (\(configuration.assets.count) assets)")
  }
}
