/// A rectangle of cells: the area a widget draws into.
struct Rect: Sendable, Equatable {
  var x: Int
  var y: Int
  var width: Int
  var height: Int

  /// An empty rectangle (nothing is drawn into it).
  static let empty = Rect(x: 0, y: 0, width: 0, height: 0)

  /// Whether nothing fits in it.
  var isEmpty: Bool { width <= 0 || height <= 0 }

  /// The row just below the rectangle.
  var maxY: Int { y + height }

  /// A rectangle of `width` x `height` centred in this one (clamped to fit).
  func centered(width w: Int, height h: Int) -> Rect {
    let cw = min(w, width)
    let ch = min(h, height)
    return Rect(x: x + (width - cw) / 2, y: y + (height - ch) / 2, width: cw, height: ch)
  }

  /// This rectangle shrunk by `n` cells on every side.
  func inset(_ n: Int) -> Rect {
    Rect(x: x + n, y: y + n, width: max(0, width - 2 * n), height: max(0, height - 2 * n))
  }
}
