/// A rectangle of cells: the area a widget draws into.
public struct Rect: Sendable, Hashable {
  /// The leftmost column.
  public var x: Int
  /// The top row.
  public var y: Int
  /// Width in columns.
  public var width: Int
  /// Height in rows.
  public var height: Int

  /// Creates a rectangle from its top-left corner and its size.
  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// An empty rectangle (nothing is drawn into it).
  public static let empty = Rect(x: 0, y: 0, width: 0, height: 0)

  /// Whether nothing fits in it.
  public var isEmpty: Bool { width <= 0 || height <= 0 }

  /// The row just below the rectangle.
  public var maxY: Int { y + height }

  /// A rectangle of `width` x `height` centred in this one (clamped to fit).
  public func centered(width w: Int, height h: Int) -> Rect {
    let cw = min(w, width)
    let ch = min(h, height)
    return Rect(x: x + (width - cw) / 2, y: y + (height - ch) / 2, width: cw, height: ch)
  }

  /// This rectangle shrunk by `n` cells on every side.
  public func inset(_ n: Int) -> Rect {
    Rect(x: x + n, y: y + n, width: max(0, width - 2 * n), height: max(0, height - 2 * n))
  }
}
