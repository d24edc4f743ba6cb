import Foundation
import TerminalCore

/// Draws a ``FleetState`` into a ``ScreenBuffer``: a pure function of the state, the size and
/// the time, on the dashboard's layout (header, table, detail pane, filter line, footer).
public enum FleetRenderer {
  /// The screen for `state` on a `width` x `height` terminal at `now`.
  public static func render(_ state: FleetState, width: Int, height: Int, now: Date)
    -> ScreenBuffer
  {
    var buffer = ScreenBuffer(width: width, height: height)
    let context = RenderContext<FleetState>(state: state, now: now)
    guard let layout = state.layout(width: width, height: height, now: now) else {
      TooSmallWidget(glyphs: context.glyphs)
        .render(in: Rect(x: 0, y: 0, width: width, height: height), into: &buffer)
      return buffer
    }
    FleetHeaderWidget(context: context).render(in: layout.header, into: &buffer)
    FleetTableWidget(context: context).render(in: layout.table, into: &buffer)
    if state.showsDetail {
      FleetDetailWidget(context: context).render(in: layout.lowerPane, into: &buffer)
    }
    FleetFooterWidget(context: context)
      .render(filterArea: layout.filterLine, footer: layout.footer, into: &buffer)
    if state.showsHelp {
      renderHelp(context, in: Rect(x: 0, y: 1, width: width, height: height - 2), &buffer)
    }
    return buffer
  }

  /// The key help in a box over the table, like the dashboard's.
  private static func renderHelp(
    _ context: RenderContext<FleetState>, in area: Rect, _ buffer: inout ScreenBuffer
  ) {
    let hints = FleetFooterWidget.hints(context.glyphs)
    let keyWidth = hints.map { DisplayWidth.of($0.key) }.max() ?? 1
    let textWidth = hints.map { DisplayWidth.of($0.long) }.max() ?? 1
    let box = area.centered(width: keyWidth + textWidth + 7, height: hints.count + 2)
    BoxFrame(context: context, title: "Keys", style: context.theme.strong)
      .render(in: box, into: &buffer)
    let inner = box.inset(1)
    for (line, hint) in hints.prefix(max(0, inner.height)).enumerated() {
      let y = inner.y + line
      buffer.write(
        TextFit.pad(hint.key, to: keyWidth, ellipsis: context.glyphs.ellipsis), x: inner.x + 1,
        y: y, style: context.theme.key)
      let x = inner.x + keyWidth + 3
      buffer.write(context.cut(hint.long, inner.x + inner.width - x), x: x, y: y)
    }
  }
}
