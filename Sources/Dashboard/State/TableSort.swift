import AssetModel
import Foundation

/// The column the table is sorted by; `s` cycles through them in this order.
public enum SortColumn: String, Sendable, CaseIterable {
  /// The engine's (config) order.
  case config
  /// Asset id, alphabetically.
  case id
  /// Most urgent state first (missing, failed, expired, stale, moving, ...).
  case state
  /// Current version.
  case version
  /// Oldest successful check first.
  case checked
  /// Soonest next attempt first.
  case next
  /// Largest first.
  case size

  /// The column after this one in the `s` cycle.
  public var next: SortColumn {
    let all = SortColumn.allCases
    let index = all.firstIndex(of: self)!
    return all[(index + 1) % all.count]
  }
}

/// How the table rows are ordered.
public struct TableSort: Sendable, Equatable {
  /// The column sorted by.
  public var column: SortColumn = .config
  /// Whether the order is reversed (`S`).
  public var reversed = false

  /// Creates the default order: the engine's, not reversed.
  public init(column: SortColumn = .config, reversed: Bool = false) {
    self.column = column
    self.reversed = reversed
  }

  /// The positions `indices` (ascending, into `assets`) in this order at `now`; ties keep the
  /// engine's order so the result is stable. The engine's order reversed is simply backwards.
  func apply(_ indices: [Int], of assets: [AssetStatus], now: Date) -> [Int] {
    if column == .config { return reversed ? indices.reversed() : indices }
    // The STATE word is worked out once per asset, not once per comparison.
    var urgency: [Int] = []
    if column == .state {
      urgency = Array(repeating: 0, count: assets.count)
      for i in indices { urgency[i] = Self.urgency(assets[i].state(at: now)) }
    }
    return indices.sorted { a, b in
      let order: ComparisonResult =
        column == .state
        ? self.order(urgency[a], urgency[b]) : compare(assets[a], assets[b], now: now)
      switch order {
      case .orderedAscending: return !reversed
      case .orderedDescending: return reversed
      case .orderedSame: return a < b
      }
    }
  }

  /// How `a` and `b` compare in this column at `now` (ties: `.orderedSame`), not reversed.
  func compare(_ a: AssetStatus, _ b: AssetStatus, now: Date) -> ComparisonResult {
    switch column {
    case .config: return .orderedSame
    case .id: return order(a.id, b.id)
    case .state: return order(Self.urgency(a.state(at: now)), Self.urgency(b.state(at: now)))
    case .version: return order(a.version ?? "", b.version ?? "")
    case .checked: return order(a.checkedAt ?? .distantPast, b.checkedAt ?? .distantPast)
    case .next: return order(a.nextAttemptAt ?? .distantFuture, b.nextAttemptAt ?? .distantFuture)
    case .size: return order(b.size ?? -1, a.size ?? -1)
    }
  }

  private func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
    a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
  }

  /// Lower is more urgent: what an operator must look at first sorts to the top.
  static func urgency(_ state: AssetState) -> Int {
    switch state {
    case .missing: 0
    case .failed: 1
    case .expired: 2
    case .stale: 3
    case .downloading: 4
    case .validating: 5
    case .checking: 6
    case .bundled: 8
    case .fresh: 9
    }
  }
}
