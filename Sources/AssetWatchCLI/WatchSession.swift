import ArgumentParser
import CursesTerminal
import Dashboard
import Foundation
import RemoteAssets

/// Runs the live view over an ``EngineLink`` (an engine of our own, or another process's over
/// its control socket) under the dashboard or the plain printer until quit or a signal, then
/// closes the link. The same code for both: the link is the only difference.
struct WatchSession<Link: EngineLink> {
  /// The link, not watching yet: the session starts it (while the dashboard is already up).
  let link: Link
  /// How to draw: colours, or plain lines.
  let display: TerminalOptions
  /// Whether the dashboard offers the destructive actions.
  let safety: SafetyOptions
  /// What the dashboard header names as the config (nil: the engine's own, when attached).
  let configLabel: String?
  /// `assetwatch demo` only: publishes the demo origin's next release (the `n` key; the
  /// dashboard then refreshes everything, so the new versions show at once).
  var nextDemoRelease: (@Sendable () async -> Void)? = nil

  /// Runs until the user quits or a signal arrives, then closes the link.
  ///
  /// - Throws: `ExitCode` with the exit status when it is not 0 (130 SIGINT, 143 SIGTERM, 129
  ///   SIGHUP, 131 SIGQUIT under the dashboard).
  func run() async throws {
    let environment = ProcessInfo.processInfo.environment
    let code: Int32
    if display.wantsDashboard(environment: environment) {
      let link = self.link
      let (firstDraw, drawn) = AsyncStream.makeStream(of: Void.self)
      let loader = Task {
        // The first frame goes out before the load competes with it for the CPU.
        for await _ in firstDraw { break }
        await link.watch()
      }
      code = await runDashboard(drawn: drawn, loaded: loader, environment: environment)
      await loader.value
    } else {
      await link.watch()
      code = await runPlain()
    }
    await link.close()
    if code != 0 { throw ExitCode(code) }
  }

  /// The ncurses dashboard; falls back to plain lines if the terminal cannot be opened.
  private func runDashboard(
    drawn: AsyncStream<Void>.Continuation, loaded: Task<Void, Never>,
    environment: [String: String]
  ) async -> Int32 {
    // However the dashboard ends (or fails to open), the load is not left waiting for a frame.
    defer { drawn.finish() }
    let inbox = EventInbox()
    let link = self.link
    // Subscribed before the load: the dashboard's first frame does not wait for thousands of
    // entries to be read; their rows arrive batch by batch.
    let updates = await link.updates()
    let pump = Task.detached {
      await EventPump.run(updates, into: inbox) { try? await link.snapshot() }
    }
    let (commands, continuation) = AsyncStream.makeStream(of: AssetCommand.self)
    let commander = Task.detached {
      // Keys pressed while the engine loads act once it has loaded.
      await loaded.value
      // Each command runs on its own, so a long refresh never holds up a pause or a drop.
      for await command in commands {
        Task {
          do {
            switch command {
            case .refresh, .refreshAll:
              // Through `refresh`, whose outcomes say what happened: an unchanged copy gets an
              // event line too, so the key visibly did something.
              let results = try await link.refresh(command.assetID.map { [$0] } ?? [])
              for entry in RefreshFeedback.entries(command, results, at: Date()) {
                inbox.post(.log(entry))
              }
            default:
              try await link.perform(command)
            }
          } catch {
            // The engine reports what it does as events; a refusal or a lost connection is
            // only known here, so it becomes a line in the event pane.
            inbox.post(
              .log(
                EngineLogEntry(
                  at: Date(), assetID: command.assetID, level: .error,
                  message: Self.failureWords(error))))
          }
        }
      }
    }
    // The detail pane's asset, in order: an attached link keeps its history current.
    let (focuses, focusSink) = AsyncStream.makeStream(of: String?.self)
    let focuser = Task.detached {
      for await id in focuses { await link.focus(id) }
    }
    defer {
      pump.cancel()
      commander.cancel()
      continuation.finish()
      focusSink.finish()
      focuser.cancel()
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
        guard let assets = try? await link.snapshot().assets else { return }
        await EventStorm.run(rate: stormRate, assets: assets, inbox: inbox)
      } : nil
    defer {
      storm?.cancel()
      if let statsPath, let stats { stats.write(to: statsPath) }
    }
    let wantColor = display.wantsColor(environment: environment)
    let app = DashboardApp(
      options: DashboardOptions(
        configPath: configLabel, readonly: safety.readonly, color: wantColor,
        attachedTo: link.socketPath, demo: nextDemoRelease != nil),
      inbox: inbox, commands: continuation, stats: stats,
      onFirstDraw: {
        drawn.yield()
        drawn.finish()
      },
      nextDemoRelease: demoKey(continuation),
      focus: { focusSink.yield($0) })
    do {
      return try await CursesTerminal.runAsync(app, wantColor: wantColor).exitStatus
    } catch {
      Console.printError("assetwatch: \(error); printing one line per event")
      drawn.finish()
      await loaded.value
      return await runPlain()
    }
  }

  /// The event line for a command that failed: a lost connection says `not connected` first
  /// (the dashboard may not have seen the drop yet), a refusal says the engine's reason.
  static func failureWords(_ error: any Error) -> String {
    if case .unreachable(let reason) = error as? EngineLinkError {
      return TerminalText.sanitize("not connected: \(reason)")
    }
    return TerminalText.sanitize("\(error)")
  }

  /// What `n` does in the demo: publish the next release, then refresh everything (the event
  /// pane says how each refresh ended), so the new versions show at once.
  private func demoKey(_ commands: AsyncStream<AssetCommand>.Continuation)
    -> (@Sendable () -> Void)?
  {
    guard let publish = nextDemoRelease else { return nil }
    return {
      Task {
        await publish()
        commands.yield(.refreshAll)
      }
    }
  }

  /// Prints lines (and, when attached, connection changes) until SIGINT, SIGTERM or SIGHUP (a
  /// dropped ssh session); returns the exit status (130/143/129). The caller then closes the link,
  /// so the engine shuts down cleanly whichever signal it was.
  private func runPlain() async -> Int32 {
    let watcher = SignalWatcher(signals: [SIGINT, SIGTERM, SIGHUP])
    let signals = watcher.signals
    defer { withExtendedLifetime(watcher) {} }
    let updates = await link.updates()
    let socketPath = link.socketPath ?? ""
    return await withTaskGroup(of: Int32.self) { group in
      group.addTask {
        var printer = PlainEventPrinter()
        for await update in updates {
          var lines: [String] = []
          switch update {
          case .connected(let pid, let cut):
            lines = ["assetwatch: attached to \(socketPath) (engine pid \(pid))"]
            if let cut {
              lines.insert("assetwatch: disconnected: \(TerminalText.sanitize(cut))", at: 0)
            }
          case .event(let event): lines = printer.lines(for: event, now: Date())
          case .disconnected(let reason):
            lines = ["assetwatch: disconnected: \(TerminalText.sanitize(reason)); retrying"]
          }
          Console.write(lines.map { $0 + "\n" }.joined(), to: .output)
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
