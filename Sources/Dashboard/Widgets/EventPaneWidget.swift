import AssetModel
import Foundation
import TerminalCore

/// The event log under the table, newest first: `20:41:05 model       download started (50 MiB)`;
/// a line that came again and again says how often and when last:
/// `20:41:05 engine      signed targets verified: 6 assets (x12, last 3s ago)`.
struct EventPaneWidget: Widget {
  let context: RenderContext<DashboardState>

  /// Columns for the asset id between the time and the message.
  static let idWidth = 12

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    guard !area.isEmpty else { return }
    let log = context.state.log
    buffer.write(
      context.rule("events", width: area.width), x: area.x, y: area.y, style: context.theme.title)
    let lines = area.height - 1
    guard !log.entries.isEmpty else {
      if lines > 0 {
        buffer.write(" no events yet", x: area.x, y: area.y + 1, style: context.theme.muted)
      }
      return
    }
    for (row, line) in log.linesNewestFirst.prefix(max(0, lines)).enumerated() {
      renderLine(line, y: area.y + 1 + row, area: area, &buffer)
    }
  }

  /// ` (x12, last 3s ago)` after a line that came more than once; empty otherwise.
  static func repeats(_ line: EventLog.Line, now: Date) -> String {
    guard line.count > 1 else { return "" }
    return " (x\(line.count), last \(Formatting.ago(line.lastAt, now: now)))"
  }

  private func renderLine(
    _ line: EventLog.Line, y: Int, area: Rect, _ buffer: inout ScreenBuffer
  ) {
    let entry = line.entry
    let time = Formatting.clock(entry.at, timeZone: context.state.options.timeZone)
    var x = area.x + 1
    x += buffer.write(time, x: x, y: y, style: context.theme.muted) + 1
    let id = context.pad(Formatting.safe(entry.assetID ?? "engine"), Self.idWidth)
    x += buffer.write(id, x: x, y: y) + 1
    let room = area.x + area.width - x
    // The count stays whole; the message gives way to it.
    let repeats = Self.repeats(line, now: context.now)
    let text =
      context.cut(Formatting.safe(entry.message), max(0, room - DisplayWidth.of(repeats))) + repeats
    buffer.write(
      context.cut(text, room), x: x, y: y, maxWidth: room, style: style(entry.level))
  }

  private func style(_ level: EngineLogEntry.Level) -> CellStyle {
    switch level {
    case .info: .plain
    case .warning: context.theme.warning
    case .error: context.theme.error
    }
  }
}
