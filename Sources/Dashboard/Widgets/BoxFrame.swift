import TerminalCore

/// A bordered, cleared box with a title in its top edge, for overlays.
struct BoxFrame: Widget {
  /// The border and ellipsis glyphs.
  let glyphs: Glyphs
  /// The text in the top edge.
  let title: String
  /// The border's style.
  let style: CellStyle

  /// A frame drawn with `glyphs`.
  init(glyphs: Glyphs, title: String, style: CellStyle) {
    self.glyphs = glyphs
    self.title = title
    self.style = style
  }

  /// A frame drawn with a view's glyphs.
  init<State>(context: RenderContext<State>, title: String, style: CellStyle) {
    self.init(glyphs: context.glyphs, title: title, style: style)
  }

  /// Clears `area`, draws its border in `style` and `title` in the top edge.
  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    guard area.width >= 2, area.height >= 2 else { return }
    let g = glyphs
    buffer.fill(area)
    let inner = String(repeating: g.horizontal, count: area.width - 2)
    buffer.write(
      String(g.corners.0) + inner + String(g.corners.1), x: area.x, y: area.y, style: style)
    buffer.write(
      String(g.corners.2) + inner + String(g.corners.3), x: area.x, y: area.maxY - 1, style: style)
    for y in (area.y + 1)..<(area.maxY - 1) {
      buffer.write(String(g.vertical), x: area.x, y: y, style: style)
      buffer.write(String(g.vertical), x: area.x + area.width - 1, y: y, style: style)
    }
    let label = TextFit.truncate(" \(title) ", to: area.width - 4, ellipsis: glyphs.ellipsis)
    buffer.write(
      label, x: area.x + 2, y: area.y, style: CellStyle(foreground: style.foreground, bold: true))
  }
}
