import ArgumentParser
import CursesTerminal
import Dashboard
import Foundation
import RemoteAssets

/// Runs an engine with auto-refresh under the dashboard or the plain printer until quit or a signal.
struct WatchSession {
  /// The engine, not started yet: the session starts it (while the dashboard is already up).
  let engine: AssetEngine
  /// How to draw: colours, or plain lines.
  let display: TerminalOptions
  /// Whether the dashboard offers the destructive actions.
  let safety: SafetyOptions
  /// What the dashboard header names as the config.
  let configLabel: String

  /// Runs until the user quits or a signal arrives, then shuts the engine down.
  ///
  /// - Throws: `ExitCode` with the exit status when it is not 0 (130 SIGINT, 143 SIGTERM).
  func run() async throws {
    let environment = ProcessInfo.processInfo.environment
    let code: Int32
    if display.wantsDashboard(environment: environment) {
      // Subscribed before the load: the dashboard's first frame does not wait for thousands of
      // entries to be read; their rows arrive batch by batch.
      let events = await engine.events()
      let engine = self.engine
      let (firstDraw, drawn) = AsyncStream.makeStream(of: Void.self)
      let loader = Task {
        // The first frame goes out before the load competes with it for the CPU.
        for await _ in firstDraw { break }
        await engine.startProgressively()
        await engine.startAutoRefresh()
      }
      code = await runDashboard(events, drawn: drawn, loaded: loader, environment: environment)
      await loader.value
    } else {
      await engine.start()
      let events = await engine.events()
      await engine.startAutoRefresh()
      code = await runPlain(events)
    }
    await engine.shutdown()
    if code != 0 { throw ExitCode(code) }
  }

  /// The ncurses dashboard; falls back to plain lines if the terminal cannot be opened.
  private func runDashboard(
    _ events: AsyncStream<EngineEvent>, drawn: AsyncStream<Void>.Continuation,
    loaded: Task<Void, Never>, environment: [String: String]
  ) async -> Int32 {
    // However the dashboard ends (or fails to open), the load is not left waiting for a frame.
    defer { drawn.finish() }
    let inbox = EventInbox()
    let pump = Task.detached {
      for await event in events { inbox.post(event) }
      inbox.finish()
    }
    let (commands, continuation) = AsyncStream.makeStream(of: AssetCommand.self)
    let engine = self.engine
    let commander = Task.detached {
      // Keys pressed while the engine loads act once it has loaded.
      await loaded.value
      // Each command runs on its own, so a long refresh never holds up a pause or a drop.
      for await command in commands { Task { await engine.perform(command) } }
    }
    defer {
      pump.cancel()
      commander.cancel()
      continuation.finish()
    }
    // For scripts/bench.sh: frame statistics written at the end, and a synthetic event storm.
    let statsPath = environment["ASSETWATCH_FRAME_STATS"].flatMap { $0.isEmpty ? nil : $0 }
    let stats = statsPath.map { _ in FrameStats() }
    let stormRate = environment["ASSETWATCH_EVENT_STORM"].flatMap { Int($0) } ?? 0
    // Only when asked: it reads every asset's status once the load is done.
    let storm: Task<Void, Never>? =
      stormRate > 0
      ? Task.detached {
        await loaded.value
        await EventStorm.run(rate: stormRate, assets: await engine.statuses(), inbox: inbox)
      } : nil
    defer {
      storm?.cancel()
      if let statsPath, let stats { stats.write(to: statsPath) }
    }
    let wantColor = display.wantsColor(environment: environment)
    let app = DashboardApp(
      options: DashboardOptions(
        configPath: configLabel, readonly: safety.readonly, color: wantColor),
      inbox: inbox, commands: continuation, stats: stats,
      onFirstDraw: {
        drawn.yield()
        drawn.finish()
      })
    do {
      return try await CursesTerminal.runAsync(app, wantColor: wantColor).exitStatus
    } catch {
      Console.printError("assetwatch: \(error); printing one line per event")
      drawn.finish()
      await loaded.value
      return await runPlain(await engine.events())
    }
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
