import ArgumentParser
import Foundation
import RemoteAssets

/// The shared body of `reset`, `drop` and `rollback`: one engine action per id, one line each.
protocol AssetActionCommand: AsyncParsableCommand {
  /// Which config to run.
  var config: ConfigOptions { get }
  /// Whether to log the engine's work.
  var logging: LoggingOptions { get }
  /// The assets to act on.
  var ids: [String] { get }
  /// What the line printed after a success says (`rolled back`).
  static var pastTense: String { get }
  /// Performs the action on one asset.
  static func act(_ engine: AssetEngine, _ id: String) async throws
}

extension AssetActionCommand {
  /// Acts on every id in turn; exits 1 if any failed (after trying the rest).
  func run() async throws {
    let engine = try await EngineLauncher.start(config, logging: logging, only: Set(ids))
    try await EngineLauncher.requireKnown(ids, engine: engine)
    var failed = false
    for id in ids {
      do {
        try await Self.act(engine, id)
        Console.printLine("\(id)  \(Self.pastTense)")
      } catch {
        Console.printError("assetwatch: \(error)")
        failed = true
      }
    }
    await engine.shutdown()
    if failed { throw ExitCode(1) }
  }
}
