import AssetModel
import TerminalCore

/// The event log under the table, newest first: `20:41:05 model       download started (50 MiB)`.
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
    for (line, entry) in log.newestFirst.prefix(max(0, lines)).enumerated() {
      renderEntry(entry, y: area.y + 1 + line, area: area, &buffer)
    }
  }

  private func renderEntry(
    _ entry: EngineLogEntry, y: Int, area: Rect, _ buffer: inout ScreenBuffer
  ) {
    let time = Formatting.clock(entry.at, timeZone: context.state.options.timeZone)
    var x = area.x + 1
    x += buffer.write(time, x: x, y: y, style: context.theme.muted) + 1
    let id = context.pad(Formatting.safe(entry.assetID ?? "engine"), Self.idWidth)
    x += buffer.write(id, x: x, y: y) + 1
    let room = area.x + area.width - x
    buffer.write(
      context.cut(Formatting.safe(entry.message), room), x: x, y: y, maxWidth: room,
      style: style(entry.level))
  }

  private func style(_ level: EngineLogEntry.Level) -> CellStyle {
    switch level {
    case .info: .plain
    case .warning: context.theme.warning
    case .error: context.theme.error
    }
  }
}
