import ArgumentParser
import Foundation
import RemoteAssets

/// The one-shot commands over a control socket: the same output as with an engine of their own,
/// but the attached engine does the work.
enum AttachedCommands {
  /// `status --attach`: the attached engine's state, as a table or JSON; `refreshFirst` asks it
  /// to refresh every asset first.
  static func status(socket: String, json: Bool, refreshFirst: Bool, configLabel: String)
    async throws
  {
    if refreshFirst {
      let client = try await connectOnce(socket)
      _ = try? await client.send(.refreshAll)
      await client.close()
    }
    // A new connection's snapshot is the engine's state now.
    let client = try await connectOnce(socket)
    let snapshot = try await firstSnapshot(client)
    await client.close()
    if json {
      try Console.printJSON(
        StatusOutput(snapshot, configPath: snapshot.info.configPath ?? configLabel))
    } else {
      for line in StatusTable.lines(snapshot) { Console.printLine(line) }
    }
    if snapshot.assets.contains(where: { $0.essential && !$0.isUsable }) { throw ExitCode(1) }
  }

  /// `refresh --attach [ID ...]`: asks the attached engine to refresh and prints its outcomes;
  /// exits 1 when a refresh failed or the engine refused.
  static func refresh(socket: String, ids: [String], json: Bool) async throws {
    let client = try await connectOnce(socket)
    var results: [ControlRefreshResult] = []
    var failed = false
    do {
      let commands: [AssetCommand] = ids.isEmpty ? [.refreshAll] : ids.map { .refresh(id: $0) }
      for command in commands {
        let reply = try await client.send(command)
        if let list = reply.results {
          results += list
        } else {
          failed = true
          Console.printError(
            "assetwatch: \(TerminalText.sanitize(reply.error ?? "the engine refused the command"))")
        }
      }
    } catch {
      Console.printError("assetwatch: \(error)")
      failed = true
    }
    await client.close()
    if json {
      try Console.printJSON(
        RefreshOutput(
          results: results.map {
            RefreshOutput.Result(
              id: OutsideText.json($0.asset), outcome: $0.outcome,
              version: OutsideText.json($0.version), error: OutsideText.json($0.error))
          }))
    } else {
      for r in results {
        var line = "\(r.asset)  \(r.outcome)"
        if let e = r.error {
          line += "  \(e)"
        } else if let v = r.version {
          line += "  \(v)"
        }
        Console.printLine(line)
      }
    }
    if failed || results.contains(where: { $0.error != nil }) { throw ExitCode(1) }
  }
}
