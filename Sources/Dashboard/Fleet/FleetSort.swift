import FleetModel
import Foundation

/// A column the fleet table can be sorted by (`s` cycles them in this order).
public enum FleetSortColumn: String, Sendable, CaseIterable {
  /// Instance, then asset (the default).
  case instance
  /// Asset, then instance.
  case asset
  /// Most urgent rollout mark first: down, rejected, stuck, unknown, behind, held back,
  /// converged.
  case rollout
  /// Version served.
  case version
  /// Oldest successful refresh first.
  case lastSuccess

  /// The column after this one in the `s` cycle.
  public var next: FleetSortColumn {
    let all = Self.allCases
    return all[(all.firstIndex(of: self)! + 1) % all.count]
  }
}

/// How the fleet table's rows are ordered.
public struct FleetSort: Sendable, Equatable {
  /// The column sorted by.
  public var column: FleetSortColumn = .instance
  /// Whether the order is reversed (`S`).
  public var reversed = false

  /// Creates an order.
  public init(column: FleetSortColumn = .instance, reversed: Bool = false) {
    self.column = column
    self.reversed = reversed
  }

  /// `rows` in this order; ties keep the snapshot's order (instance, asset).
  func apply(_ rows: [FleetRow]) -> [FleetRow] {
    guard column != .instance || reversed else { return rows }
    return Array(rows.enumerated()).sorted { a, b in
      let (x, y) = (key(a.element), key(b.element))
      if x != y { return reversed ? y.precedes(x) : x.precedes(y) }
      return a.offset < b.offset
    }
    .map(\.element)
  }

  private func key(_ row: FleetRow) -> SortKey {
    switch column {
    case .instance: .text(row.instance)
    case .asset: .text(row.asset)
    case .rollout: .number(Double(row.mark.urgency))
    case .version: .text(row.version ?? "")
    case .lastSuccess: .number(row.lastSuccess?.timeIntervalSince1970 ?? 0)
    }
  }

  private enum SortKey: Equatable {
    case text(String)
    case number(Double)

    func precedes(_ other: SortKey) -> Bool {
      switch (self, other) {
      case (.text(let a), .text(let b)): VersionOrder.precedes(a, b)
      case (.number(let a), .number(let b)): a < b
      default: false
      }
    }
  }
}
