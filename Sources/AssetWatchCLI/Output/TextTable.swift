import Foundation
import TerminalCore

/// Plain-text tables for the one-shot commands (`status`, `fleet --once`): columns padded to the
/// terminal columns their widest cell takes, so rows line up whatever the script.
///
/// Padding and trimming are done here, over the text's own scalars: Foundation's
/// `padding(toLength:)` and `trimmingCharacters(in:)` went through `NSString` (34,000
/// instructions a row, a tenth of a `status` of 1,000 assets), and `padding(toLength:)` counts
/// UTF-16 units, so a cell with emoji was cut short, through the middle of a character.
enum TextTable {
  /// The table's lines: every column but the last padded to its widest cell (in terminal
  /// columns, ``DisplayWidth``), two spaces between columns, whitespace at either end removed.
  static func lines(_ rows: [[String]]) -> [String] {
    var widths: [Int] = []
    for row in rows {
      for (i, cell) in row.enumerated() {
        let width = DisplayWidth.of(cell)
        if i < widths.count { widths[i] = max(widths[i], width) } else { widths.append(width) }
      }
    }
    return rows.map { row in
      var line = ""
      for (i, cell) in row.enumerated() {
        if i > 0 { line += "  " }
        line += i == row.count - 1 ? cell : padded(cell, to: widths[i])
      }
      return trimmed(line)
    }
  }

  /// `text` followed by spaces up to `width` terminal columns; never cut.
  static func padded(_ text: String, to width: Int) -> String {
    let missing = width - DisplayWidth.of(text)
    return missing > 0 ? text + String(repeating: " ", count: missing) : text
  }

  /// `text` without the whitespace (`CharacterSet.whitespaces`: spaces and tabs) at either end.
  static func trimmed(_ text: String) -> String {
    let scalars = text.unicodeScalars
    var start = scalars.startIndex
    var end = scalars.endIndex
    while start < end, CharacterSet.whitespaces.contains(scalars[start]) {
      start = scalars.index(after: start)
    }
    while end > start, CharacterSet.whitespaces.contains(scalars[scalars.index(before: end)]) {
      end = scalars.index(before: end)
    }
    return start == scalars.startIndex && end == scalars.endIndex
      ? text : String(scalars[start..<end])
  }
}
