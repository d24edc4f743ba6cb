import Foundation

/// A view's state as ``RenderContext`` reads it: its display options, the table rows shown at a
/// time, and which of them is selected.
protocol RenderedState {
  /// The table rows, as the view keeps them.
  associatedtype Rows
  /// Colour, UTF-8 and time zone.
  var options: DashboardOptions { get }
  /// The rows shown at `now` (filtered and sorted).
  func tableRows(at now: Date) -> Rows
  /// The selected row's index in `rows`, if any row is shown.
  func selectedIndex(in rows: Rows) -> Int?
}

extension DashboardState: RenderedState {}

extension FleetState: RenderedState {}
