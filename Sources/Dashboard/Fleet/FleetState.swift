import FleetModel
import Foundation
import TerminalCore

/// Everything the fleet view shows, changed only by ``FleetReducer`` and drawn by
/// ``FleetRenderer``. Selection, scrolling, the filter line and the detail pane work as in the
/// asset dashboard (the same keys and the same selection rules).
public struct FleetState: Sendable, Equatable {
  /// Fixed display options (colour, UTF-8, time zone); the fleet view is always read-only.
  public let options: DashboardOptions
  /// Where the numbers come from, as shown in the header (a URL without credentials).
  public let source: String
  /// Seconds between two queries.
  public let interval: TimeInterval
  /// The last fleet Prometheus answered with.
  public internal(set) var snapshot: FleetSnapshot?
  /// When `snapshot` arrived.
  public internal(set) var updatedAt: Date?
  /// Why the last query failed, until one succeeds again (sanitized).
  public internal(set) var lastError: String?
  /// The selected row's id.
  public internal(set) var selectedID: String?
  /// The row the selection was last seen on.
  public internal(set) var selectedRowHint = 0
  /// The first table row shown.
  public internal(set) var scrollOffset = 0
  /// The filter line.
  public internal(set) var filter = FilterState()
  /// The table order.
  public internal(set) var sort = FleetSort()
  /// Whether the detail pane for the selected row is shown.
  public internal(set) var showsDetail = false
  /// Whether the key help is shown.
  public internal(set) var showsHelp = false
  /// The terminal size last known.
  public internal(set) var terminalSize: TerminalSize?
  /// The asset and page of rows wanted from Prometheus (`←` `→` change the asset, `[` `]` the
  /// page); the rows shown are the page that last arrived.
  public internal(set) var request: FleetPageRequest

  /// Creates a state waiting for Prometheus' first answer.
  public init(
    options: DashboardOptions, source: String, interval: TimeInterval,
    terminalSize: TerminalSize? = nil, request: FleetPageRequest = .init()
  ) {
    self.options = DashboardOptions(
      configPath: nil, readonly: true, color: options.color, unicode: options.unicode,
      timeZone: options.timeZone)
    self.source = source
    self.interval = interval
    self.terminalSize = terminalSize
    self.request = request
  }

  /// The rows shown: those passing the filter (instance, asset, state, mark, version or error
  /// kind contains the text, case-insensitive), in the current order.
  public func rows(at now: Date) -> [FleetRow] {
    let all = snapshot?.rows ?? []
    let needle = filter.text.lowercased()
    let shown =
      needle.isEmpty
      ? all
      : all.filter { row in
        [
          row.instance, row.asset, row.state ?? "", row.mark.rawValue, row.version ?? "",
          row.errorKind ?? "",
        ]
        .contains { $0.lowercased().contains(needle) }
      }
    return sort.apply(shown)
  }

  /// The index of the selected row in `rows`, or the nearest row when it is gone.
  public func selectedIndex(in rows: [FleetRow]) -> Int? {
    guard !rows.isEmpty else { return nil }
    if let selectedID, let index = rows.firstIndex(where: { $0.id == selectedID }) {
      return index
    }
    return min(max(0, selectedRowHint), rows.count - 1)
  }

  /// The layout on a `width` x `height` terminal at `now`; nil when it is too small.
  func layout(width: Int, height: Int, now: Date) -> ScreenLayout? {
    ScreenLayout(
      width: width, height: height, rowCount: rows(at: now).count, showsDetail: showsDetail,
      showsEvents: false, showsFilter: filter.isVisible)
  }
}

extension FleetState: SelectableTable {
  func tableRows(at now: Date) -> [FleetRow] { rows(at: now) }

  func viewportRows(at now: Date) -> Int? {
    guard let size = terminalSize else { return nil }
    return layout(width: size.width, height: size.height, now: now)?.tableRows
  }

  mutating func cycleSortColumn() { sort.column = sort.column.next }

  mutating func reverseSortOrder() { sort.reversed.toggle() }
}
