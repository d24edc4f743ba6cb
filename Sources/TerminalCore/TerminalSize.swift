/// A terminal size in cells.
public struct TerminalSize: Sendable, Hashable {
  /// Columns.
  public var width: Int
  /// Rows.
  public var height: Int

  /// Creates a size.
  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }
}
