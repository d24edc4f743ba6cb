import CTerminalGuard
import Foundation
import Logging
import Synchronization

/// The engine's log on stderr as text (`--verbose`, `serve` without `--log-json`), one line per
/// message in swift-log's stream format
/// (`2026-11-26T09:30:00Z debug assetwatch : key=value [RemoteAssets] message`).
///
/// While the dashboard owns the terminal and stderr is a terminal, a line written there would
/// land in the middle of the table, so lines are held back instead (the last
/// ``HeldLogLines/limit``) and written once the dashboard has closed. With stderr redirected
/// (`2>engine.log`) they go out at once.
struct TextLogHandler: LogHandler {
  let label: String
  var logLevel: Logger.Level = .info
  var metadata: Logger.Metadata = [:]

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let merged = metadata.merging(event.metadata ?? [:]) { $1 }
    let pretty =
      merged.isEmpty
      ? ""
      : " "
        + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
          separator: " ")
    let time = Date().formatted(.iso8601)
    HeldLogLines.emit(
      "\(time) \(event.level) \(label) :\(pretty) [\(event.source)] \(event.message)\n")
  }
}

/// The log lines held back while the dashboard is on the terminal stderr writes to.
enum HeldLogLines {
  /// At most this many are kept; older ones are counted and said to be dropped.
  static let limit = 1000

  private struct State {
    var lines: [String] = []
    var dropped = 0
    var flushAtExit = false
  }

  private static let state = Mutex(State())

  /// Holds `line` back while the dashboard shows on stderr's terminal; otherwise writes what was
  /// held back, then `line`.
  static func emit(_ line: String) {
    if ctg_guard_armed() != 0, isatty(STDERR_FILENO) == 1 {
      let registerExit = state.withLock { state -> Bool in
        state.lines.append(line)
        if state.lines.count > limit {
          state.lines.removeFirst()
          state.dropped += 1
        }
        defer { state.flushAtExit = true }
        return !state.flushAtExit
      }
      // However the command ends after the dashboard (an exit status thrown, a return), the
      // lines held back are written.
      if registerExit { atexit { HeldLogLines.flush() } }
      return
    }
    flush()
    Console.write(line, to: .error)
  }

  /// Writes the lines held back, if any, to stderr.
  static func flush() {
    let (lines, dropped) = state.withLock { state in
      defer {
        state.lines = []
        state.dropped = 0
      }
      return (state.lines, state.dropped)
    }
    guard !lines.isEmpty || dropped > 0 else { return }
    var text =
      dropped > 0
      ? "assetwatch: \(dropped) earlier log lines were dropped while the dashboard was up\n" : ""
    text += lines.joined()
    Console.write(text, to: .error)
  }
}
