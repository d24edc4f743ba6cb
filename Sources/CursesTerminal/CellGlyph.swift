import CNCurses
import Glibc

/// The wide characters curses draws for one cell's grapheme.
///
/// Pure apart from `wcwidth` (which depends on the locale set before curses starts).
enum CellGlyph {
  /// Shown for anything that cannot be drawn safely (control characters, non-ASCII text when the
  /// locale is not UTF-8, a wide character cut by the right edge).
  static let replacement: wchar_t = 0x3F  // "?"

  /// The NUL-terminated characters to draw for `text` in a cell with `columnsLeft` columns up to
  /// the right edge (this cell included). A spacing character comes first, combining ones after,
  /// at most `maxCharacters` in all (curses' CCHARW_MAX).
  static func characters(
    for text: String, unicode: Bool, columnsLeft: Int, maxCharacters: Int
  ) -> [wchar_t] {
    var result: [wchar_t] = []
    for scalar in text.unicodeScalars where result.count < maxCharacters {
      result.append(drawable(scalar, unicode: unicode))
      if !unicode { break }  // no combining characters in ASCII mode
    }
    if result.isEmpty { result.append(0x20) }
    // A wide character in the last column would wrap or be refused: show a stand-in instead.
    if columnsLeft < 2 && cncurses_wcwidth(result[0]) > 1 { result = [replacement] }
    result.append(0)
    return result
  }

  private static func drawable(_ scalar: Unicode.Scalar, unicode: Bool) -> wchar_t {
    let value = scalar.value
    if value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) { return replacement }
    if !unicode && value > 0x7E { return replacement }
    return wchar_t(bitPattern: value)
  }
}
