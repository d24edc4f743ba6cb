import CNCurses
import Glibc

/// The wide characters curses draws for one cell's grapheme.
///
/// Pure apart from ``cells(for:unicode:assumedWidth:maxCharacters:)``, which asks the C library's
/// `wcwidth` (it depends on the locale set before curses starts).
enum CellGlyph {
  /// Shown for anything that cannot be drawn safely (control characters, non-ASCII text when the
  /// locale is not UTF-8, a wide character cut by the right edge, a glyph whose width the C
  /// library sees differently from the screen buffer).
  static let replacement: wchar_t = 0x3F  // "?"
  /// Drawn into a column the glyph before it does not cover.
  static let space: wchar_t = 0x20

  /// What to draw for `text` in a cell the buffer laid out `assumedWidth` columns wide (1, or 2
  /// for a wide character; less when the window's right edge cuts it): one NUL-terminated string
  /// per column to draw, the glyph first and a space for each column it does not cover.
  static func cells(for text: String, unicode: Bool, assumedWidth: Int, maxCharacters: Int)
    -> [[wchar_t]]
  {
    drawable(
      characters(for: text, unicode: unicode, maxCharacters: maxCharacters),
      assumedWidth: assumedWidth, libcWidth: { cncurses_wcwidth($0) })
  }

  /// The characters curses is given for `text` (not terminated): a spacing character first,
  /// combining ones after, at most `maxCharacters` in all (curses' CCHARW_MAX).
  static func characters(for text: String, unicode: Bool, maxCharacters: Int) -> [wchar_t] {
    var result: [wchar_t] = []
    for scalar in text.unicodeScalars where result.count < maxCharacters {
      result.append(drawable(scalar, unicode: unicode))
      if !unicode { break }  // no combining characters in ASCII mode
    }
    if result.isEmpty { result.append(space) }
    return result
  }

  /// What to draw for `glyph` in the `assumedWidth` columns the screen buffer gave it, when
  /// `libcWidth` is the C library's `wcwidth` (what curses goes by): one NUL-terminated string per
  /// column to draw. Curses keeps the first character and the zero-width ones right after it, so
  /// the glyph takes `libcWidth(glyph[0])` columns; when that is not `assumedWidth` (the buffer's
  /// table and the C library disagree, or the C library does not know the character) the glyph
  /// would shift the rest of the row or not be drawn at all, so `?` is drawn instead. Columns the
  /// drawn glyph does not cover get a space, so nothing from an earlier frame stays there.
  static func drawable(
    _ glyph: [wchar_t], assumedWidth: Int, libcWidth: (wchar_t) -> Int32
  ) -> [[wchar_t]] {
    let columns = max(1, assumedWidth)
    var kept = Array(glyph.prefix(1))
    for character in glyph.dropFirst() {
      guard libcWidth(character) == 0 else { break }  // curses stops at a spacing character
      kept.append(character)
    }
    let width = kept.first.map { Int(libcWidth($0)) } ?? -1
    if width != columns { kept = [replacement] }
    let covered = width == columns ? columns : 1
    return [kept + [0]] + Array(repeating: [space, 0], count: columns - covered)
  }

  private static func drawable(_ scalar: Unicode.Scalar, unicode: Bool) -> wchar_t {
    let value = scalar.value
    if value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) { return replacement }
    if !unicode && value > 0x7E { return replacement }
    return wchar_t(bitPattern: value)
  }
}
