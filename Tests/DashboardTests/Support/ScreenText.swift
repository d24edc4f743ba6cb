import TerminalCore

@testable import Dashboard

/// A ``ScreenBuffer`` as text a person can read in a snapshot file: the characters, then a mask of
/// foreground colours, then a mask of attributes (one character per cell).
enum ScreenText {
  /// The characters, row by row, trailing spaces removed. A wide character takes its two cells.
  static func characters(_ buffer: ScreenBuffer) -> [String] {
    rows(buffer).map { row in
      let text = row.map(\.text).joined()
      return String(text.reversed().drop(while: { $0 == " " }).reversed())
    }
  }

  /// Foreground colours: `.` default, `r` red, `g` green, `y` yellow, `b` blue, `m` magenta,
  /// `c` cyan, `w` white, `k` black; uppercase when a background colour is set too.
  static func colors(_ buffer: ScreenBuffer) -> [String] {
    rows(buffer).map { row in String(row.map(colorCode)) }
  }

  /// Attributes as one hex digit of flags, `.` for none: 1 bold, 2 reverse, 4 underline, 8 dim.
  static func attributes(_ buffer: ScreenBuffer) -> [String] {
    rows(buffer).map { row in String(row.map(attributeCode)) }
  }

  /// The whole snapshot file.
  static func render(_ buffer: ScreenBuffer) -> String {
    var lines = ["# \(buffer.width)x\(buffer.height)"]
    lines += characters(buffer)
    lines.append(
      "# colors: . default, r red, g green, y yellow, c cyan (uppercase: with background)")
    lines += colors(buffer)
    lines.append("# attributes: . none, else hex of 1 bold + 2 reverse + 4 underline + 8 dim")
    lines += attributes(buffer)
    return lines.joined(separator: "\n") + "\n"
  }

  private static func rows(_ buffer: ScreenBuffer) -> [[Cell]] {
    (0..<buffer.height).map { y in (0..<buffer.width).map { x in buffer[x, y] } }
  }

  private static func colorCode(_ cell: Cell) -> Character {
    let code: Character
    switch cell.style.foreground {
    case nil: code = "."
    case .black: code = "k"
    case .red: code = "r"
    case .green: code = "g"
    case .yellow: code = "y"
    case .blue: code = "b"
    case .magenta: code = "m"
    case .cyan: code = "c"
    case .white: code = "w"
    }
    return cell.style.background == nil ? code : Character(code.uppercased())
  }

  private static func attributeCode(_ cell: Cell) -> Character {
    let s = cell.style
    let flags = (s.bold ? 1 : 0) | (s.reverse ? 2 : 0) | (s.underline ? 4 : 0) | (s.dim ? 8 : 0)
    return flags == 0 ? "." : Character(String(flags, radix: 16))
  }
}
