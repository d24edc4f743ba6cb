import TerminalCore

/// What a terminal below the minimum size shows instead of the dashboard; its area is the whole
/// terminal, whose size the message names. Two short lines (`terminal too small` and
/// `30x8, need 40x10`) so a narrow terminal shows the whole message; one line when only one fits.
struct TooSmallWidget: Widget {
  let glyphs: Glyphs

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    guard !area.isEmpty else { return }
    for (line, text) in Self.lines(width: area.width, height: area.height).enumerated() {
      let fitted = TextFit.truncate(text, to: area.width, ellipsis: glyphs.ellipsis)
      let x = area.x + max(0, (area.width - DisplayWidth.of(fitted)) / 2)
      let top = area.y + max(0, (area.height - 2) / 2)
      buffer.write(fitted, x: x, y: top + line, style: CellStyle(bold: true))
    }
  }

  /// The message for a `width` x `height` terminal: two lines, or one when the height is 1.
  static func lines(width: Int, height: Int) -> [String] {
    let need = "\(ScreenLayout.minimumWidth)x\(ScreenLayout.minimumHeight)"
    let size = "\(width)x\(height)"
    if height < 2 { return ["too small: \(size), need \(need)"] }
    return ["terminal too small", "\(size), need \(need)"]
  }
}
