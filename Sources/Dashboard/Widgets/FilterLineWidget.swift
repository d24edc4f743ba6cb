import TerminalCore

/// The line above the footer while a filter is typed or kept: `/ model▏   2 of 16`.
struct FilterLineWidget: Widget {
  let context: RenderContext<DashboardState>

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    Self.draw(
      context.state.filter, shown: context.rows.count, of: context.state.assets.count,
      glyphs: context.glyphs, theme: context.theme, in: area, into: &buffer)
  }

  /// Draws a filter line for any table (the dashboard's and the fleet view's).
  static func draw(
    _ filter: FilterState, shown: Int, of total: Int, glyphs: Glyphs, theme: Theme,
    in area: Rect, into buffer: inout ScreenBuffer
  ) {
    guard !area.isEmpty else { return }
    let count = "\(shown) of \(total)"
    var x = area.x + 1
    x += buffer.write("/ ", x: x, y: area.y, style: theme.key)
    let room = area.width - (x - area.x) - DisplayWidth.of(count) - 4
    x += buffer.write(
      TextFit.truncate(filter.text, to: room, ellipsis: glyphs.ellipsis), x: x, y: area.y,
      maxWidth: room, style: theme.strong)
    if filter.isEditing {
      x += buffer.write(String(glyphs.cursor), x: x, y: area.y, style: theme.key)
    }
    buffer.write(count, x: x + 3, y: area.y, style: theme.muted)
  }
}
