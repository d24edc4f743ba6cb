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
