import TerminalCore

/// What a terminal below the minimum size shows instead of the dashboard; its area is the whole
/// terminal, whose size the message names.
struct TooSmallWidget: Widget {
  let glyphs: Glyphs

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    guard !area.isEmpty else { return }
    let need = "\(ScreenLayout.minimumWidth)x\(ScreenLayout.minimumHeight)"
    let full = "terminal too small (\(area.width)x\(area.height), need \(need))"
    let text = TextFit.truncate(full, to: area.width, ellipsis: glyphs.ellipsis)
    let x = area.x + max(0, (area.width - DisplayWidth.of(text)) / 2)
    buffer.write(text, x: x, y: area.y + area.height / 2, style: CellStyle(bold: true))
  }
}
