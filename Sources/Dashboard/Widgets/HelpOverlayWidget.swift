import TerminalCore

/// The key help, centred over the table; any key closes it, `?` turns to the legend. When the
/// terminal is tall enough the legend (every mark and colour) follows the keys in the same box;
/// otherwise the last line says `?` shows it.
struct HelpOverlayWidget: Widget {
  let context: RenderContext<DashboardState>

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    let hints = KeyHints(options: context.state.options, glyphs: context.glyphs).all
    let legend = Legend(theme: context.theme, glyphs: context.glyphs)
    let keyWidth = hints.map { DisplayWidth.of($0.key) }.max() ?? 1
    let textWidth = hints.map { DisplayWidth.of($0.long) }.max() ?? 1
    let readonly = context.state.options.readonly
    var notes: [String] = []
    if readonly { notes.append("read-only: reset, drop and roll back are off") }
    let keysHeight = hints.count + notes.count + 2
    let legendHeight = legend.entries.count + 2  // a blank line and the title above it
    let withLegend = keysHeight + legendHeight + 1 <= area.height
    if !withLegend { notes.append("? again: what the marks and colours mean") }
    var width = keyWidth + textWidth + 7
    width = max(width, (notes.map(DisplayWidth.of).max() ?? 0) + 4)
    if withLegend { width = max(width, legend.marksWidth + legend.textWidth + 6) }
    let box = area.centered(
      width: min(width, area.width),
      height: hints.count + notes.count + 2 + (withLegend ? legendHeight : 0))
    BoxFrame(context: context, title: "Keys", style: context.theme.strong)
      .render(in: box, into: &buffer)
    let inner = box.inset(1)
    for (line, hint) in hints.prefix(max(0, inner.height - notes.count)).enumerated() {
      let y = inner.y + line
      buffer.write(context.pad(hint.key, keyWidth), x: inner.x + 1, y: y, style: context.theme.key)
      let x = inner.x + keyWidth + 3
      buffer.write(context.cut(hint.long, inner.x + inner.width - x), x: x, y: y)
    }
    var y = inner.y + min(hints.count, max(0, inner.height - notes.count))
    for note in notes where y < inner.maxY {
      buffer.write(
        context.cut(note, inner.width - 2), x: inner.x + 1, y: y, style: context.theme.muted)
      y += 1
    }
    guard withLegend else { return }
    y += 1
    buffer.write(Legend.title, x: inner.x + 1, y: y, style: context.theme.title)
    legend.draw(
      into: &buffer, x: inner.x + 1, y: y + 1, width: inner.width - 2, rows: inner.maxY - y - 1,
      glyphs: context.glyphs)
  }
}

/// The legend alone (`?` pressed in the help): what every mark and colour means.
struct LegendOverlayWidget: Widget {
  let context: RenderContext<DashboardState>

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    let legend = Legend(theme: context.theme, glyphs: context.glyphs)
    let box = area.centered(
      width: min(area.width, legend.marksWidth + legend.textWidth + 6),
      height: legend.entries.count + 2)
    BoxFrame(context: context, title: Legend.title, style: context.theme.strong)
      .render(in: box, into: &buffer)
    let inner = box.inset(1)
    legend.draw(
      into: &buffer, x: inner.x + 1, y: inner.y, width: inner.width - 2, rows: inner.height,
      glyphs: context.glyphs)
  }
}
