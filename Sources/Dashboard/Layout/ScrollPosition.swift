/// Keeping the selected row inside the visible part of the table.
enum ScrollPosition {
  /// The first row to show so that `selected` is visible, moving as little as possible from
  /// `current`.
  static func offset(current: Int, selected: Int?, rowCount: Int, viewport: Int) -> Int {
    guard viewport > 0, rowCount > viewport else { return 0 }
    var offset = current
    if let selected {
      if selected < offset { offset = selected }
      if selected >= offset + viewport { offset = selected - viewport + 1 }
    }
    return min(max(0, offset), rowCount - viewport)
  }
}
