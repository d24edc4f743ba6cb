/// A column of the asset table, with what it takes to fit it.
enum TableColumn: String, Sendable, CaseIterable {
  case id, state, version, target, etag, checked, next, size, progress

  /// The title in the header row.
  var title: String {
    switch self {
    case .id: "ID"
    case .state: "STATE"
    case .version: "VERSION"
    case .target: "TARGET"
    case .etag: "ETAG"
    case .checked: "CHECKED"
    case .next: "NEXT"
    case .size: "SIZE"
    case .progress: "PROGRESS"
    }
  }

  /// Lower keeps the column longer when the terminal is narrow. ID and STATE are never dropped;
  /// PROGRESS carries the download bar and the error text, so it goes before the rest.
  var priority: Int {
    switch self {
    case .id, .state: 0
    case .progress: 1
    case .version: 2
    case .target: 3
    case .checked: 4
    case .next: 5
    case .size: 6
    case .etag: 7
    }
  }

  /// The narrowest the column may get.
  var minimumWidth: Int {
    switch self {
    case .id: 8
    case .state: 15  // "DOWNLOADING 42%"
    case .version, .target: 10  // "2026.11.21", or 8 hex digits of the hash
    case .checked, .size: 8
    case .etag: 10
    case .next: 6  // "paused"
    case .progress: 22
    }
  }

  /// The width the column wants; the ID column's depends on the ids shown.
  func idealWidth(longestID: Int) -> Int {
    switch self {
    case .id: min(24, max(minimumWidth, longestID))
    case .progress: 32
    default: minimumWidth
    }
  }

  /// Whether the column may be narrower than its ideal width rather than be dropped.
  var isFlexible: Bool { self == .id || self == .progress }

  /// The width the column must get to be shown: the ideal width, except that the progress column
  /// makes do with its minimum and only very long ids are cut.
  func requiredWidth(longestID: Int) -> Int {
    switch self {
    case .id: min(idealWidth(longestID: longestID), 16)
    case .progress: minimumWidth
    default: idealWidth(longestID: longestID)
    }
  }

  /// Whether the values are right-aligned (numbers).
  var isRightAligned: Bool { self == .size }

  /// The sort column that orders rows by this column, if any.
  var sortColumn: SortColumn? {
    switch self {
    case .id: .id
    case .state: .state
    case .version: .version
    case .checked: .checked
    case .next: .next
    case .size: .size
    case .target, .etag, .progress: nil
    }
  }
}
