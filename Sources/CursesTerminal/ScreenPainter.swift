import CNCurses
import TerminalCore

/// Draws a `ScreenBuffer` into a curses window and sends it to the terminal in one update.
final class ScreenPainter {
  private let window: UnsafeMutablePointer<WINDOW>
  private let palette: CursesPalette
  private let unicode: Bool
  private let maxCharacters = Int(cncurses_cchar_max())

  /// Creates a painter for `window`; `unicode` false draws non-ASCII text as `?`.
  init(window: UnsafeMutablePointer<WINDOW>, palette: CursesPalette, unicode: Bool) {
    self.window = window
    self.palette = palette
    self.unicode = unicode
  }

  /// Draws `buffer`, clipped to the window; cells outside the buffer stay blank.
  ///
  /// With `previous`, the frame the window holds now (same size), only the rows that differ
  /// from it are drawn again: an idle dashboard whose clock turns costs one row, not the screen.
  /// Without it, the window is erased and every cell drawn. Either way curses compares with what
  /// the terminal shows and sends only the difference, in one `doupdate`.
  func paint(_ buffer: ScreenBuffer, over previous: ScreenBuffer? = nil) {
    let rows = min(buffer.height, Int(getmaxy(window)))
    let columns = min(buffer.width, Int(getmaxx(window)))
    let base = previous.flatMap {
      $0.width == buffer.width && $0.height == buffer.height ? $0 : nil
    }
    if base == nil { werase(window) }
    for y in 0..<rows {
      let start = y * buffer.width
      guard let base else {
        for x in 0..<columns { draw(buffer, x: x, y: y, columns: columns) }
        continue
      }
      if base.cells[start..<start + buffer.width] == buffer.cells[start..<start + buffer.width] {
        continue
      }
      // A changed row: only its changed cells are drawn (the clock's seconds, an age), each
      // with its neighbours, which decide whether it is half of a wide character.
      for x in 0..<columns where Self.changed(x, y, buffer, over: base) {
        draw(buffer, x: x, y: y, columns: columns)
      }
    }
    wnoutrefresh(window)
    doupdate()
  }

  /// Draws the cell at (`x`, `y`) over the columns the buffer gave it: two when the next cell is
  /// its continuation. Every column is written, so no character of an earlier frame stays.
  /// Whether drawing the cell at `x`, `y` could put anything else than `base` put there: it or
  /// a neighbour differs (a neighbour decides whether the cell is covered by a wide one, or is one).
  static func changed(_ x: Int, _ y: Int, _ buffer: ScreenBuffer, over base: ScreenBuffer) -> Bool {
    let start = y * buffer.width
    let first = max(x - 1, 0) + start
    let last = min(x + 1, buffer.width - 1) + start
    return base.cells[first...last] != buffer.cells[first...last]
  }

  private func draw(_ buffer: ScreenBuffer, x: Int, y: Int, columns: Int) {
    let cell = buffer[x, y]
    // The cell before, a wide one, already covered this column (with its glyph or a space).
    if cell.isContinuation, x > 0, !buffer[x - 1, y].isContinuation { return }
    let wide = x + 1 < buffer.width && buffer[x + 1, y].isContinuation && !cell.isContinuation
    let look = palette.look(for: cell.style)
    let cells = CellGlyph.cells(
      for: cell.text, unicode: unicode, assumedWidth: min(wide ? 2 : 1, columns - x),
      maxCharacters: maxCharacters)
    for (offset, characters) in cells.enumerated() {
      // The bottom-right cell reports ERR (the cursor cannot advance) yet is drawn: ignore.
      _ = characters.withUnsafeBufferPointer {
        cncurses_put(
          window, Int32(y), Int32(x + offset), $0.baseAddress, look.attributes, look.pair)
      }
    }
  }
}
