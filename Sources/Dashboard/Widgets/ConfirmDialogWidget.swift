import TerminalCore

/// The confirm dialog: what will happen, and that only `y` does it.
struct ConfirmDialogWidget: Widget {
  let context: RenderContext<DashboardState>
  let dialog: ConfirmDialog

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    let width = min(area.width - 2, 64)
    let lines = TextFit.wrap(impact, to: width - 4)
    let box = area.centered(width: width, height: lines.count + 5)
    BoxFrame(context: context, title: dialog.action.title, style: context.theme.dialog)
      .render(in: box, into: &buffer)
    let inner = box.inset(1)
    for (line, text) in lines.prefix(max(0, inner.height - 3)).enumerated() {
      buffer.write(text, x: inner.x + 1, y: inner.y + 1 + line, maxWidth: inner.width - 2)
    }
    answerLine(in: inner, &buffer)
  }

  /// The dialog's sentences at this frame's time ("until the next refresh in 12s" counts down;
  /// the table is frozen while the dialog is open, so the asset is the one it opened on).
  private var impact: String {
    guard let asset = context.state.asset(dialog.targetID) else { return dialog.impact }
    return ImpactText.describe(dialog.action, asset, info: context.state.info, now: context.now)
  }

  /// `y yes   any other key: no (default)`, on the box's last inner line.
  private func answerLine(in inner: Rect, _ buffer: inout ScreenBuffer) {
    var line = SegmentLine()
    line.add("y", context.theme.key, spacing: 0)
    line.add("yes", spacing: 1)
    line.add("any other key", context.theme.key, spacing: 4)
    line.add("no", spacing: 1)
    let width = SegmentLine.width(of: line.segments)
    let x = inner.x + max(1, (inner.width - width) / 2)
    line.draw(into: &buffer, x: x, y: inner.maxY - 1, width: inner.x + inner.width - x)
  }
}
