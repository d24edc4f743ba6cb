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

  /// Whether both buffers share one cell storage (one is an unmodified copy of the other), a
  /// constant-time check that implies equality.
  public func isSameStorage(as other: ScreenBuffer) -> Bool {
    width == other.width && height == other.height
      && cells.withUnsafeBufferPointer { mine in
        other.cells.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
      }
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
