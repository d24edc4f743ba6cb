import CNCurses
import Foundation
import Synchronization

/// The ncurses backend: owns the terminal on one dedicated thread, draws the app's frames and
/// feeds it keys.
public enum CursesTerminal {
  /// Why curses cannot be used here, or nil when it can: stdin or stdout is not a terminal, TERM
  /// is unset or `dumb`, or its terminfo entry is missing or cannot position the cursor.
  ///
  /// Loads terminfo, which is curses state: call it before `run`, never while a session runs.
  /// Pass `ProcessInfo.processInfo.environment` (curses reads the process's TERM).
  public static func unavailableReason(environment: [String: String]) -> String? {
    if let reason = TerminalPreflight.problem(
      environment: environment, inputIsTerminal: isatty(STDIN_FILENO) == 1,
      outputIsTerminal: isatty(STDOUT_FILENO) == 1)
    {
      return reason
    }
    let term = environment["TERM"] ?? ""
    let probe = cncurses_probe_cursor_addressing(term, STDOUT_FILENO)
    return TerminalPreflight.problem(probeResult: probe, term: term)
  }

  /// Runs `app` in the terminal until it quits or SIGINT/SIGTERM arrives, then restores the
  /// terminal and says how the session ended; blocks the calling thread meanwhile.
  ///
  /// Curses runs on a thread of its own while the calling thread waits, so never call this on a
  /// Swift concurrency thread (use `runAsync` there). `wantColor` is the caller's choice (the
  /// CLI decides it in one place, `ColorChoice`: off for `--no-color`, a non-empty NO_COLOR or
  /// TERM=dumb); colours are used only when it is true and the terminal has them.
  /// - Throws: `CursesTerminalError` when the terminal cannot be used (nothing is changed then).
  public static func run<App: TerminalApplication>(
    _ app: sending App, wantColor: Bool
  ) throws -> TerminalExit {
    let outcome = SessionOutcome()
    let transfer = TerminalTransfer(value: app)
    startThread {
      outcome.finish(Result { try session(transfer.value, wantColor: wantColor) })
    }
    return try outcome.wait().get()
  }

  /// Runs `app` in the terminal like `run`, suspending the calling task instead of blocking.
  ///
  /// Curses still runs on a thread of its own; the calling task only waits, so this is safe to
  /// call from the main actor or any task.
  /// - Throws: `CursesTerminalError` when the terminal cannot be used (nothing is changed then).
  public static func runAsync<App: TerminalApplication>(
    _ app: sending App, wantColor: Bool
  ) async throws -> TerminalExit {
    let transfer = TerminalTransfer(value: app)
    return try await withCheckedThrowingContinuation { continuation in
      startThread {
        continuation.resume(with: Result { try session(transfer.value, wantColor: wantColor) })
      }
    }
  }

  // MARK: - On the terminal thread

  /// One whole session; the screen is closed however the loop ends.
  private static func session(_ app: any TerminalApplication, wantColor: Bool) throws
    -> TerminalExit
  {
    let screen = try CursesScreen.open(wantColor: wantColor)
    defer { screen.close() }
    // Curses sends no KEY_RESIZE at start: without the size now, the app would only learn it
    // from the first SIGWINCH.
    app.start(capabilities: screen.capabilities, size: screen.size)
    return TerminalLoop(app: app, screen: screen).run()
  }

  private static func startThread(_ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = "curses"
    thread.start()
  }
}

/// The result of a session run by the blocking `run`, handed from the terminal thread to the
/// waiting one.
private final class SessionOutcome: Sendable {
  private let result = Mutex<Result<TerminalExit, any Error>?>(nil)
  private let finished = DispatchSemaphore(value: 0)

  /// Stores the result and wakes the waiting thread.
  func finish(_ value: Result<TerminalExit, any Error>) {
    result.withLock { $0 = value }
    finished.signal()
  }

  /// Blocks until `finish` was called, then returns its result.
  func wait() -> Result<TerminalExit, any Error> {
    finished.wait()
    return result.withLock { $0! }
  }
}
