/// A table column as ``FittedColumns`` fits it: what it needs, what it wants, what goes first.
protocol FittableColumn: Equatable {
  /// Lower keeps the column longer when the terminal is narrow; 0 is never dropped.
  var priority: Int { get }
  /// The width the column wants; may depend on the longest id shown.
  func idealWidth(longestID: Int) -> Int
  /// The width the column must get to be shown.
  func requiredWidth(longestID: Int) -> Int
  /// Whether the column may be narrower than its ideal width rather than be dropped.
  var isFlexible: Bool { get }
  /// Whether the column, when it is the last one, takes the width left over.
  var takesSpareWidth: Bool { get }
}

/// The asset table's layout.
typealias ColumnLayout = FittedColumns<TableColumn>

extension ColumnLayout {
  /// Fits the asset table's columns into `width`.
  init(width: Int, longestID: Int) {
    self.init(TableColumn.allCases, width: width, longestID: longestID)
  }
}

extension TableColumn: FittableColumn {
  var takesSpareWidth: Bool { self == .progress }
}

/// Which table columns fit in a width, and how wide each one is.
struct FittedColumns<Column: FittableColumn>: Equatable {
  /// Columns between one another.
  static var gap: Int { 2 }
  /// The column left of the first one, where a changed row shows its marker.
  static var gutter: Int { 1 }

  /// The columns shown, left to right, with their widths.
  let columns: [(column: Column, width: Int)]

  /// Fits the columns into `width`: drops the lowest-priority columns until the others fit at
  /// their required widths, then widens the flexible ones towards their ideal widths.
  init(_ candidates: [Column], width: Int, longestID: Int) {
    var shown = candidates
    func needed(_ columns: [Column]) -> Int {
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
    if spare > 0, let last = shown.indices.last, shown[last].takesSpareWidth {
      widths[last] += spare
    }
    columns = Array(zip(shown, widths)).map { (column: $0.0, width: $0.1) }
  }

  static func == (a: Self, b: Self) -> Bool {
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
