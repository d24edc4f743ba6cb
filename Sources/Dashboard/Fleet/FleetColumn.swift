/// A column of the fleet table, fitted to the terminal by ``FittedColumns`` like the asset table.
enum FleetColumn: String, Sendable, CaseIterable, TitledColumn {
  case instance, asset, rollout, version, target, state, lastSuccess, error

  /// The title in the header row.
  var title: String {
    switch self {
    case .instance: "INSTANCE"
    case .asset: "ASSET"
    case .rollout: "ROLLOUT"
    case .version: "VERSION"
    case .target: "TARGET"
    case .state: "STATE"
    case .lastSuccess: "LAST OK"
    case .error: "ERROR"
    }
  }

  /// INSTANCE, ASSET and ROLLOUT stay; the error kind goes first on narrow terminals.
  var priority: Int {
    switch self {
    case .instance, .asset, .rollout: 0
    case .version: 1
    case .target: 2
    case .state: 3
    case .lastSuccess: 4
    case .error: 5
    }
  }

  /// The narrowest the column may get.
  var minimumWidth: Int {
    switch self {
    case .instance: 10
    case .asset: 8
    case .rollout: 11  // "✓ converged"
    case .version, .target: 10
    case .state: 11  // "DOWNLOADING"
    case .lastSuccess: 8
    case .error: 11  // "http_status"
    }
  }

  /// The width the column wants; INSTANCE's depends on the longest instance shown.
  func idealWidth(longestID: Int) -> Int {
    switch self {
    case .instance: min(28, max(minimumWidth, longestID))
    case .asset: 12
    case .error: 16
    default: minimumWidth
    }
  }

  func requiredWidth(longestID: Int) -> Int {
    switch self {
    case .instance: min(idealWidth(longestID: longestID), 21)
    case .asset, .error: minimumWidth
    default: idealWidth(longestID: longestID)
    }
  }

  var isFlexible: Bool { self == .instance || self == .asset || self == .error }

  var takesSpareWidth: Bool { self == .error }

  var isRightAligned: Bool { false }

  /// The sort column that orders rows by this column, if any.
  var sortColumn: FleetSortColumn? {
    switch self {
    case .instance: .instance
    case .asset: .asset
    case .rollout: .rollout
    case .version: .version
    case .lastSuccess: .lastSuccess
    case .target, .state, .error: nil
    }
  }
}
