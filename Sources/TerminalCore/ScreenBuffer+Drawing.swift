/// Writing text into a ``ScreenBuffer`` by display width, keeping wide characters whole.
extension ScreenBuffer {
  /// Writes `text` from column `x` on row `y`, clipped to `maxWidth` columns (and the buffer);
  /// returns the columns used. Callers cut text with an ellipsis first; this only clips.
  @discardableResult
  public mutating func write(
    _ text: String, x: Int, y: Int, maxWidth: Int = .max, style: CellStyle = .plain
  ) -> Int {
    guard y >= 0, y < height else { return 0 }
    let limit = x + min(max(0, maxWidth), width - x)
    var column = x
    // ASCII (nearly every cell a dashboard draws): a byte is a grapheme of one column, none
    // for a control byte (CR LF, one grapheme of width 0, comes to the same). No walk by
    // grapheme, and each cell's text is a string made once.
    if text.utf8.allSatisfy({ $0 < 0x80 }) {
      for byte in text.utf8 where byte >= 0x20 && byte != 0x7F {
        guard column < limit else { break }
        if column >= 0 { put(Self.asciiText[Int(byte)], width: 1, x: column, y: y, style: style) }
        column += 1
      }
      return max(0, column - x)
    }
    for grapheme in text {
      let w = DisplayWidth.of(grapheme)
      if w == 0 { continue }
      if column + w > limit {
        // A wide character that does not fit leaves its one free column blank.
        if column < limit { put(" ", width: 1, x: column, y: y, style: style) }
        column = limit
        break
      }
      if column >= 0 { put(String(grapheme), width: w, x: column, y: y, style: style) }
      column += w
    }
    return max(0, column - x)
  }

  /// The one-character string of each ASCII byte.
  private static let asciiText: [String] = (0..<128).map {
    String(Character(Unicode.Scalar(UInt8($0))))
  }

  /// Fills `rect` with spaces in `style`.
  public mutating func fill(_ rect: Rect, style: CellStyle = .plain) {
    for row in rect.y..<rect.maxY {
      write(String(repeating: " ", count: max(0, rect.width)), x: rect.x, y: row, style: style)
    }
  }

  /// Changes the style of the cells in `rect`, keeping their text.
  public mutating func restyle(_ rect: Rect, _ change: (inout CellStyle) -> Void) {
    for row in max(0, rect.y)..<min(height, rect.maxY) {
      for column in max(0, rect.x)..<min(width, rect.x + rect.width) {
        var cell = self[column, row]
        change(&cell.style)
        self[column, row] = cell
      }
    }
  }

  /// Places one grapheme of display width `w` at (`x`, `y`). Any wide character it partly
  /// covers is blanked, so no half of a wide character is left behind.
  private mutating func put(_ grapheme: String, width w: Int, x: Int, y: Int, style: CellStyle) {
    guard x >= 0, x + w <= width else { return }
    if self[x, y].isContinuation, x > 0 { self[x - 1, y] = Cell(" ", style: self[x - 1, y].style) }
    let end = x + w
    if end < width, self[end, y].isContinuation {
      self[end, y] = Cell(" ", style: self[end, y].style)
    }
    self[x, y] = Cell(grapheme, style: style)
    if w == 2 { self[x + 1, y] = Cell("", style: style) }
  }
}
