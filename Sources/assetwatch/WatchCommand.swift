import ArgumentParser
import Foundation
import RemoteAssets

/// `assetwatch watch`: the live dashboard, or one line per event when there is no terminal.
struct WatchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch",
    abstract: "Watch assets live: the dashboard, or one line per event when not on a terminal.",
    discussion: "Example: assetwatch watch --config assets.json --readonly")

  @OptionGroup var common: CommonOptions

  func run() async throws {
    let engine = try await common.startEngine()
    try await WatchSession(engine: engine, options: common).run()
  }
}

/// Runs an engine with auto-refresh under the dashboard or the plain printer until quit or a signal.
struct WatchSession {
  let engine: AssetEngine
  let options: CommonOptions

  func run() async throws {
    let events = await engine.events()
    await engine.startAutoRefresh()
    let code = await runPlain(events)
    await engine.shutdown()
    if code != 0 { throw ExitCode(code) }
  }

  /// Prints lines until SIGINT/SIGTERM; returns the exit status (130/143).
  private func runPlain(_ events: AsyncStream<EngineEvent>) async -> Int32 {
    let watcher = SignalWatcher(signals: [SIGINT, SIGTERM])
    let signals = watcher.signals
    defer { withExtendedLifetime(watcher) {} }
    return await withTaskGroup(of: Int32.self) { group in
      group.addTask {
        var printer = PlainEventPrinter()
        for await event in events {
          for line in printer.lines(for: event, now: Date()) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
          }
        }
        return 0
      }
      group.addTask {
        for await number in signals { return 128 + number }
        return 0
      }
      let code = await group.next() ?? 0
      group.cancelAll()
      return code
    }
  }
}
