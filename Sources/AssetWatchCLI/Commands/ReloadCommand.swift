import ArgumentParser
import Foundation
import RemoteAssets

/// `assetwatch reload`: asks a running `assetwatch serve` to read its config file again, as
/// SIGHUP does, and says what changed. Exit 0 reloaded; 2 the file was refused (its problems
/// printed, the running config stays); 1 the engine could not be reached or refused otherwise.
struct ReloadCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reload",
    abstract: "Make a running serve read its config file again.",
    discussion: """
      The same as sending serve SIGHUP, with an answer: serve reads and checks its whole \
      --config file first. A file with problems, or one changing what only a restart can \
      change (cacheDirectory, appVersion, manifest, tuf, instance, probation, \
      maxConcurrentTransfers, control), is refused: its problems are printed as `check` \
      prints them (FILE:LINE: FIELD: what) and the running config stays (exit 2). Otherwise \
      the added, removed and changed assets are applied and named (exit 0). Exit 1 when the \
      engine cannot be reached or refuses (a --readonly socket, a shutdown under way).

      Without --attach, the serve of --config's cache directory is asked.

      Example: assetwatch reload --attach /var/cache/app-assets
      """)

  @OptionGroup(title: "Config Options") var config: ConfigOptions
  @OptionGroup(title: "Attach Options") var attaching: AttachOptions

  func run() async throws {
    let socket: String
    if let attached = try attaching.socketPath(config: config) {
      socket = attached
    } else {
      socket = ControlProtocol.socketPath(
        cacheDirectory: try config.loadConfiguration().cacheDirectory)
    }
    let reply: ControlReply
    do {
      let client = try await ControlClient.connect(to: socket, delivery: .none)
      reply = try await client.reload()
      await client.close()
    } catch {
      Console.printError(
        "assetwatch: cannot reach the engine at \(OutsideText.line(socket)): \(error)")
      throw ExitCode(1)
    }
    let outcome = ReloadOutcome(reply: reply)
    for line in outcome.standardOutput { Console.printLine(line) }
    for line in outcome.standardError { Console.printError(line) }
    if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
  }
}
