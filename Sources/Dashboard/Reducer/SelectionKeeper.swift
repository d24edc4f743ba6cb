import AssetModel
import Foundation

/// Keeps the selection on an existing row and in view, and moves it for navigation keys.
enum SelectionKeeper {
  /// How far PgUp/PgDn move when the state knows no terminal size.
  static let defaultPage = 10

  /// Pins the selection to its asset's row, or to the nearest row when that asset is gone or
  /// filtered out, and scrolls so the selection is visible.
  static func normalize<State: SelectableTable>(_ state: inout State, now: Date) {
    let rows = state.tableRows(at: now)
    guard let index = state.selectedIndex(in: rows) else {
      state.selectedID = nil
      state.scrollOffset = 0
      return
    }
    state.selectedID = rows[index].id
    state.selectedRowHint = index
    let viewport = state.viewportRows(at: now) ?? rows.count
    state.scrollOffset = ScrollPosition.offset(
      current: state.scrollOffset, selected: index, rowCount: rows.count, viewport: viewport)
  }

  /// Moves the selection by `delta` rows (clamped to the table).
  static func move<State: SelectableTable>(by delta: Int, _ state: inout State, now: Date) {
    let rows = state.tableRows(at: now)
    guard let current = state.selectedIndex(in: rows) else { return }
    select(min(max(0, current + delta), rows.count - 1), rows, &state)
  }

  /// Selects the first row.
  static func moveToTop<State: SelectableTable>(_ state: inout State, now: Date) {
    let rows = state.tableRows(at: now)
    if !rows.isEmpty { select(0, rows, &state) }
  }

  /// Selects the last row.
  static func moveToBottom<State: SelectableTable>(_ state: inout State, now: Date) {
    let rows = state.tableRows(at: now)
    if !rows.isEmpty { select(rows.count - 1, rows, &state) }
  }

  /// Rows in one page of the table at the last known terminal size.
  static func pageSize<State: SelectableTable>(_ state: State, now: Date) -> Int {
    max(1, state.viewportRows(at: now) ?? defaultPage)
  }

  private static func select<State: SelectableTable>(
    _ index: Int, _ rows: State.Rows, _ state: inout State
  ) {
    state.selectedID = rows[index].id
    state.selectedRowHint = index
  }
}
