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
