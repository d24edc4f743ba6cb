import TerminalCore

/// The bottom line: key hints, the filter's keys while typing, or a short notice.
struct FooterWidget: Widget {
  let context: RenderContext<DashboardState>

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    guard !area.isEmpty else { return }
    if let notice = context.state.notice, notice.isShown(at: context.now) {
      let text = context.cut(notice.text, area.width - 1)
      buffer.write(text, x: area.x + 1, y: area.y, style: context.theme.warning)
      return
    }
    line.draw(into: &buffer, x: area.x + 1, y: area.y, width: area.width - 1)
  }

  private var line: SegmentLine {
    var line = SegmentLine()
    let hints: [KeyHints.Hint]
    if context.state.filter.isEditing {
      hints = [
        .init(key: "enter", short: "keep filter", long: "", priority: 0),
        .init(key: "esc", short: "clear filter", long: "", priority: 0),
      ]
    } else {
      hints = KeyHints(options: context.state.options, glyphs: context.glyphs).all
        .filter { $0.key != "esc" }
    }
    for (index, hint) in hints.enumerated() {
      line.add(hint.key, context.theme.key, priority: hint.priority, spacing: 2, group: index)
      line.add(hint.short, priority: hint.priority, spacing: 1, group: index)
    }
    return line
  }
}
