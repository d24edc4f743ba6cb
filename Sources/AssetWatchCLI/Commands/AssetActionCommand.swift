import ArgumentParser
import Foundation
import RemoteAssets

/// The shared body of `reset`, `drop`, `rollback`, `confirm` and `reject`: one engine action per
/// id, one line each.
protocol AssetActionCommand: AsyncParsableCommand {
  /// Which config to run.
  var config: ConfigOptions { get }
  /// Whether to log the engine's work.
  var logging: LoggingOptions { get }
  /// Which engine to act through: one of our own, or a running one (`--attach`).
  var attaching: AttachOptions { get }
  /// The assets to act on.
  var ids: [String] { get }
  /// What the line printed after a success starts with (`rolled back`).
  static var pastTense: String { get }
  /// The command for one asset.
  func command(_ id: String) -> AssetCommand
}

extension AssetActionCommand {
  /// Acts on every id in turn; exits 1 if any failed (after trying the rest).
  func run() async throws {
    let link = try await EngineLinks.open(
      config: config, attaching: attaching, logging: logging, only: Set(ids))
    // One look before and one after, whatever the number of ids: an attached engine sends its
    // whole state each time.
    let before = try await EngineLinks.snapshot(link)
    try await EngineLinks.requireKnown(ids, in: before, link: link)
    var done: [String] = []
    var failed = false
    for id in ids {
      do {
        try await link.perform(command(id))
        done.append(id)
      } catch {
        Console.printError("assetwatch: \(error)")
        failed = true
      }
    }
    let after = done.isEmpty ? nil : try? await link.snapshot()
    func byID(_ snapshot: EngineSnapshot?) -> [String: AssetStatus] {
      Dictionary((snapshot?.assets ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }
    let (was, now) = (byID(before), byID(after))
    for id in done { Console.printLine(Self.line(id, before: was[id], after: now[id])) }
    await link.close()
    if failed { throw ExitCode(1) }
  }
}

extension AssetActionCommand {
  /// The line printed after a success: what was done, then what the asset serves now, as the
  /// engine says after the action (`rolled back: v7 -> v6`, `reset to bundled: now serves
  /// nothing, no bundled copy`). Versions are the engine's (cleaned of control characters).
  static func line(_ id: String, before: AssetStatus?, after: AssetStatus?) -> String {
    guard let after else { return "\(id)  \(pastTense)" }
    func version(_ status: AssetStatus?) -> String {
      status?.version.map { TerminalText.sanitize($0, maxLength: 64) } ?? "none"
    }
    let serving: String
    switch after.source {
    case .cached: serving = "now serves the cached copy \(version(after))"
    case .bundled: serving = "now serves the bundled copy"
    case .none: serving = "now serves nothing: no bundled copy"
    }
    if after.source == .cached, let before, before.source == .cached {
      return "\(id)  \(pastTense): \(version(before)) -> \(version(after))"
    }
    return "\(id)  \(pastTense): \(serving)"
  }
}
