/// Which table columns fit in a width, and how wide each one is.
struct ColumnLayout: Equatable {
  /// Columns between one another.
  static let gap = 2
  /// The column left of the first one, where a changed row shows its marker.
  static let gutter = 1

  /// The columns shown, left to right, with their widths.
  let columns: [(column: TableColumn, width: Int)]

  /// Fits the columns into `width`: drops the lowest-priority columns until the others fit at
  /// their required widths, then widens the flexible ones towards their ideal widths.
  init(width: Int, longestID: Int) {
    var shown = TableColumn.allCases
    func needed(_ columns: [TableColumn]) -> Int {
      let cells = columns.reduce(0) { $0 + $1.requiredWidth(longestID: longestID) }
      return Self.gutter + cells + Self.gap * max(0, columns.count - 1)
    }
    while needed(shown) > width,
      let drop = shown.filter({ $0.priority > 0 }).max(by: { $0.priority < $1.priority })
    {
      shown.removeAll { $0 == drop }
    }
    var widths = shown.map { $0.requiredWidth(longestID: longestID) }
    var spare = width - needed(shown)
    for (index, column) in shown.enumerated() where column.isFlexible && spare > 0 {
      let grow = min(spare, column.idealWidth(longestID: longestID) - widths[index])
      widths[index] += grow
      spare -= grow
    }
    if spare > 0, let last = shown.indices.last, shown[last] == .progress { widths[last] += spare }
    columns = Array(zip(shown, widths)).map { (column: $0.0, width: $0.1) }
  }

  static func == (a: ColumnLayout, b: ColumnLayout) -> Bool {
    a.columns.map(\.column) == b.columns.map(\.column)
      && a.columns.map(\.width) == b.columns.map(\.width)
  }

  /// The left edge of each column, in order.
  var origins: [Int] {
    var x = Self.gutter
    return columns.map { entry in
      defer { x += entry.width + Self.gap }
      return x
    }
  }
}
