import ArgumentParser
import CursesTerminal
import Dashboard
import Foundation
import RemoteAssets

/// `watch --attach`: the same dashboard (or plain lines), fed by another process's engine over
/// its control socket. It keeps the last known table when the engine goes away, says
/// "disconnected" in the header, and reconnects when the socket answers again.
struct AttachedWatch {
  let socketPath: String
  /// How to draw: colours, or plain lines.
  let display: TerminalOptions
  /// Whether the dashboard offers the destructive actions.
  let safety: SafetyOptions

  func run() async throws {
    let session = ControlSession(path: socketPath)
    let environment = ProcessInfo.processInfo.environment
    let code =
      display.wantsDashboard(environment: environment)
      ? await runDashboard(session, environment: environment) : await runPlain(session)
    if code != 0 { throw ExitCode(code) }
  }

  private func runDashboard(_ session: ControlSession, environment: [String: String]) async
    -> Int32
  {
    let inbox = EventInbox()
    let updates = session.updates()
    let pump = Task.detached {
      for await update in updates {
        switch update {
        case .connected: inbox.post(input: .connection(.connected))
        case .event(let event): inbox.post(event)
        case .disconnected: inbox.post(input: .connection(.disconnected(since: Date())))
        }
      }
    }
    let (commands, continuation) = AsyncStream.makeStream(of: AssetCommand.self)
    let commander = Task.detached {
      for await command in commands {
        Task {
          // The engine reports what it does as events; a refusal or a lost connection is only
          // known here, so it becomes a line in the event pane.
          let problem: String?
          do {
            let reply = try await session.send(command)
            problem = reply.ok || reply.results != nil ? nil : reply.error
          } catch {
            problem = "\(command.commandWord) not sent: \(error)"
          }
          if let problem {
            inbox.post(
              .log(
                EngineLogEntry(
                  at: Date(), assetID: command.assetID, level: .error,
                  message: TerminalText.sanitize(problem))))
          }
        }
      }
    }
    defer {
      pump.cancel()
      commander.cancel()
      continuation.finish()
    }
    let wantColor = display.wantsColor(environment: environment)
    let app = DashboardApp(
      options: DashboardOptions(configPath: nil, readonly: safety.readonly, color: wantColor),
      inbox: inbox, commands: continuation)
    do {
      return try await CursesTerminal.runAsync(app, wantColor: wantColor).exitStatus
    } catch {
      Console.printError("assetwatch: \(error); printing one line per event")
      return await runPlain(session)
    }
  }

  /// Prints lines (and connection changes) until SIGINT/SIGTERM.
  private func runPlain(_ session: ControlSession) async -> Int32 {
    let watcher = SignalWatcher(signals: [SIGINT, SIGTERM])
    let signals = watcher.signals
    defer { withExtendedLifetime(watcher) {} }
    let updates = session.updates()
    let socketPath = self.socketPath
    return await withTaskGroup(of: Int32.self) { group in
      group.addTask {
        var printer = PlainEventPrinter()
        for await update in updates {
          var lines: [String] = []
          switch update {
          case .connected(let hello):
            lines = ["assetwatch: attached to \(socketPath) (engine pid \(hello.pid))"]
          case .event(let event): lines = printer.lines(for: event, now: Date())
          case .disconnected(let reason):
            lines = ["assetwatch: disconnected: \(TerminalText.sanitize(reason)); retrying"]
          }
          for line in lines { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
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
