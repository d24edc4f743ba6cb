import Foundation

/// A table the shared keys drive: a selection kept by row id, a scroll offset, a filter line, a
/// sort order and a detail pane. The asset dashboard and the fleet view both conform, so moving,
/// filtering, sorting and detail work the same in both (``TableKeys``, `SelectionKeeper`,
/// `FilterKeys`).
protocol SelectableTable {
  /// One table row.
  associatedtype Row: Identifiable where Row.ID == String

  /// The rows as the table holds them (for the dashboard, a cached order over its assets).
  associatedtype Rows: RandomAccessCollection<Row> where Rows.Index == Int

  /// The rows shown at `now`: filtered and in the current order.
  func tableRows(at now: Date) -> Rows
  /// The selected row's id.
  var selectedID: String? { get set }
  /// The row the selection was last seen on, so a vanished selection moves to the nearest row.
  var selectedRowHint: Int { get set }
  /// The first row shown.
  var scrollOffset: Int { get set }
  /// The filter line.
  var filter: FilterState { get set }
  /// Whether the detail pane is shown.
  var showsDetail: Bool { get set }
  /// The rows the table can show at the last known terminal size; nil when no size is known.
  func viewportRows(at now: Date) -> Int?
  /// Moves the sort to the next column (`s`).
  mutating func cycleSortColumn()
  /// Reverses the sort order (`S`).
  mutating func reverseSortOrder()
  /// The index of the selected row in `rows`, or the nearest row when it is gone.
  func selectedIndex(in rows: Rows) -> Int?
}

extension DashboardState: SelectableTable {
  func viewportRows(at now: Date) -> Int? {
    guard let size = terminalSize,
      let layout = ScreenLayout(state: self, width: size.width, height: size.height, now: now)
    else { return nil }
    return layout.tableRows
  }

  mutating func cycleSortColumn() { sort.column = sort.column.next }

  mutating func reverseSortOrder() { sort.reversed.toggle() }
}
