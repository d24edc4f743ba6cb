import ArgumentParser
import Foundation
import RemoteAssets

/// Chooses the ``EngineLink`` a command talks through, and the checks every command makes on it.
/// `--attach` chooses the control socket; otherwise the command runs an engine of its own over
/// the config's cache. Past this choice a command does not know which it has.
enum EngineLinks {
  /// Opens the link for a one-shot command.
  ///
  /// - Parameters:
  ///   - only: the assets the command is about; nil loads every asset. A command about one asset
  ///     of thousands reads one entry.
  ///   - sweep: when an engine of our own sweeps stale partials and unreferenced blobs at
  ///     start (not for a one-shot look such as `status`).
  /// - Throws: `ExitCode(2)` for a config problem; `ExitCode(1)` after printing why when the
  ///   cache cannot be opened or the attached engine cannot be reached.
  static func open(
    config: ConfigOptions, attaching: AttachOptions, logging: LoggingOptions,
    only: Set<String>? = nil, sweep: StartSweep = .beforeReturning
  ) async throws -> any EngineLink {
    let link: any EngineLink
    if let socket = try attaching.socketPath(config: config) {
      link = SocketEngineLink(path: socket)
    } else {
      link = LocalEngineLink(
        engine: try await EngineLauncher.open(try config.loadConfiguration(), logging: logging))
    }
    do {
      try await link.open(only: only, sweep: sweep)
    } catch {
      Console.printError("assetwatch: \(error)")
      throw ExitCode(1)
    }
    return link
  }

  /// The engine's state now, or exit 1 saying why it cannot be had (the link is closed then).
  ///
  /// - Throws: `ExitCode(1)` when the attached engine cannot be reached.
  static func snapshot(_ link: some EngineLink) async throws -> EngineSnapshot {
    do {
      return try await link.snapshot()
    } catch {
      Console.printError("assetwatch: \(error)")
      await link.close()
      throw ExitCode(1)
    }
  }

  /// Fails with a readable message, after closing the link, when an id names no asset.
  ///
  /// - Throws: `ExitCode(1)` for the first unknown id (or an engine that cannot be reached).
  static func requireKnown(_ ids: [String], link: some EngineLink) async throws {
    guard !ids.isEmpty else { return }
    try await requireKnown(ids, in: try await snapshot(link), link: link)
  }

  /// The same check against a snapshot already taken.
  ///
  /// - Throws: `ExitCode(1)` for the first unknown id.
  static func requireKnown(_ ids: [String], in snapshot: EngineSnapshot, link: some EngineLink)
    async throws
  {
    let known = Set(snapshot.assets.map(\.id))
    for id in ids where !known.contains(id) {
      Console.printError("assetwatch: no asset named \"\(id)\" in the config")
      await link.close()
      throw ExitCode(1)
    }
  }
}
