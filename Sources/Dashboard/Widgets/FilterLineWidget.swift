import TerminalCore

/// The line above the footer while a filter is typed or kept: `/ model▏   2 of 16`.
struct FilterLineWidget: Widget {
  let context: RenderContext

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    guard !area.isEmpty else { return }
    let filter = context.state.filter
    let count = "\(context.rows.count) of \(context.state.assets.count)"
    var x = area.x + 1
    x += buffer.write("/ ", x: x, y: area.y, style: context.theme.key)
    let room = area.width - (x - area.x) - DisplayWidth.of(count) - 4
    x += buffer.write(
      context.cut(filter.text, room), x: x, y: area.y, maxWidth: room, style: context.theme.strong)
    if filter.isEditing {
      x += buffer.write(String(context.glyphs.cursor), x: x, y: area.y, style: context.theme.key)
    }
    buffer.write(count, x: x + 3, y: area.y, style: context.theme.muted)
  }
}
