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
