/// What a terminal below the minimum size shows instead of the dashboard.
struct TooSmallWidget {
  let width: Int
  let height: Int
  let glyphs: Glyphs

  func render(into buffer: inout ScreenBuffer) {
    guard width > 0, height > 0 else { return }
    let need = "\(ScreenLayout.minimumWidth)x\(ScreenLayout.minimumHeight)"
    let full = "terminal too small (\(width)x\(height), need \(need))"
    let text = TextFit.truncate(full, to: width, ellipsis: glyphs.ellipsis)
    let x = max(0, (width - DisplayWidth.of(text)) / 2)
    buffer.write(text, x: x, y: height / 2, style: CellStyle(bold: true))
  }
}
