import ArgumentParser
import Foundation
import RemoteAssets

/// The shared body of `reset`, `drop` and `rollback`: one engine action per id, one line each.
protocol AssetActionCommand: AsyncParsableCommand {
  /// Which config to run.
  var config: ConfigOptions { get }
  /// Whether to log the engine's work.
  var logging: LoggingOptions { get }
  /// Which engine to act through: one of our own, or a running one (`--attach`).
  var attaching: AttachOptions { get }
  /// The assets to act on.
  var ids: [String] { get }
  /// What the line printed after a success says (`rolled back`).
  static var pastTense: String { get }
  /// The command for one asset.
  static func command(_ id: String) -> AssetCommand
}

extension AssetActionCommand {
  /// Acts on every id in turn; exits 1 if any failed (after trying the rest).
  func run() async throws {
    let link = try await EngineLinks.open(
      config: config, attaching: attaching, logging: logging, only: Set(ids))
    try await EngineLinks.requireKnown(ids, link: link)
    var failed = false
    for id in ids {
      do {
        try await link.perform(Self.command(id))
        Console.printLine("\(id)  \(Self.pastTense)")
      } catch {
        Console.printError("assetwatch: \(error)")
        failed = true
      }
    }
    await link.close()
    if failed { throw ExitCode(1) }
  }
}
