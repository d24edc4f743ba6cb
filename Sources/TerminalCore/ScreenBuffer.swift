/// A colour of the basic eight-colour palette every terminal has.
public enum TerminalColor: UInt8, Sendable, Hashable, CaseIterable {
  case black, red, green, yellow, blue, magenta, cyan, white
}

/// How a cell is drawn.
public struct CellStyle: Sendable, Hashable {
  /// Foreground colour, or the terminal's default.
  public var foreground: TerminalColor?
  /// Background colour, or the terminal's default.
  public var background: TerminalColor?
  /// Bold text.
  public var bold: Bool
  /// Reverse video (used for the selection and for monochrome emphasis).
  public var reverse: Bool
  /// Dim text.
  public var dim: Bool
  /// Underlined text.
  public var underline: Bool

  /// Creates a style.
  public init(
    foreground: TerminalColor? = nil, background: TerminalColor? = nil, bold: Bool = false,
    reverse: Bool = false, dim: Bool = false, underline: Bool = false
  ) {
    self.foreground = foreground
    self.background = background
    self.bold = bold
    self.reverse = reverse
    self.dim = dim
    self.underline = underline
  }

  /// The terminal's default look.
  public static let plain = CellStyle()
}

/// One screen cell: a grapheme and its style. A wide grapheme occupies its cell and marks the next
/// one as a continuation.
public struct Cell: Sendable, Hashable {
  /// The grapheme shown (a single space when blank; empty for a continuation cell).
  public var text: String
  /// The style.
  public var style: CellStyle

  /// Creates a cell.
  public init(_ text: String = " ", style: CellStyle = .plain) {
    self.text = text
    self.style = style
  }

  /// The right half of a wide character.
  public var isContinuation: Bool { text.isEmpty }
}

/// A rectangle of cells that widgets render into and a terminal backend draws (ratatui's `Buffer`).
public struct ScreenBuffer: Sendable, Equatable {
  /// Width in columns.
  public let width: Int
  /// Height in rows.
  public let height: Int
  /// Cells, row by row.
  public private(set) var cells: [Cell]

  /// Creates a blank buffer.
  public init(width: Int, height: Int) {
    self.width = max(0, width)
    self.height = max(0, height)
    self.cells = Array(repeating: Cell(), count: self.width * self.height)
  }

  /// The cell at column `x`, row `y`.
  public subscript(x: Int, y: Int) -> Cell {
    get { cells[y * width + x] }
    set {
      guard x >= 0, y >= 0, x < width, y < height else { return }
      cells[y * width + x] = newValue
    }
  }
}
