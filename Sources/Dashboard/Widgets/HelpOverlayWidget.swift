import TerminalCore

/// The key help, centred over the table; any key closes it.
struct HelpOverlayWidget: Widget {
  let context: RenderContext<DashboardState>

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    let hints = KeyHints(readonly: context.state.options.readonly, glyphs: context.glyphs).all
    let keyWidth = hints.map { DisplayWidth.of($0.key) }.max() ?? 1
    let textWidth = hints.map { DisplayWidth.of($0.long) }.max() ?? 1
    let readonly = context.state.options.readonly
    let box = area.centered(
      width: keyWidth + textWidth + 7, height: hints.count + 2 + (readonly ? 1 : 0))
    BoxFrame(context: context, title: "Keys", style: context.theme.strong)
      .render(in: box, into: &buffer)
    let inner = box.inset(1)
    for (line, hint) in hints.prefix(max(0, inner.height - (readonly ? 1 : 0))).enumerated() {
      let y = inner.y + line
      buffer.write(context.pad(hint.key, keyWidth), x: inner.x + 1, y: y, style: context.theme.key)
      let x = inner.x + keyWidth + 3
      buffer.write(context.cut(hint.long, inner.x + inner.width - x), x: x, y: y)
    }
    if readonly, inner.height > 0 {
      buffer.write(
        context.cut("read-only: reset, drop and roll back are off", inner.width - 2),
        x: inner.x + 1, y: inner.maxY - 1, style: context.theme.muted)
    }
  }
}
