import AssetModel
import Foundation
import TerminalCore

/// Everything the dashboard shows, changed only by ``DashboardReducer`` and drawn by
/// ``DashboardRenderer``.
///
/// The selection is an asset id, not a row number, so live re-sorting never moves the cursor to
/// another asset.
public struct DashboardState: Sendable, Equatable {
  /// How long a changed row stays highlighted, in seconds.
  public static let highlightDuration: TimeInterval = 3

  /// Fixed options for this run.
  public let options: DashboardOptions
  /// Engine-wide facts, once the first snapshot arrived.
  public internal(set) var info: EngineInfo?
  /// Every asset, in the engine's order.
  public internal(set) var assets: [AssetStatus] = [] {
    didSet {
      rowOrder.assetsChanged()
      tally.assetsChanged()
    }
  }
  /// The selected asset.
  public internal(set) var selectedID: String?
  /// The row the selection was last seen on, so a vanished selection moves to the nearest row.
  public internal(set) var selectedRowHint = 0
  /// The first table row shown.
  public internal(set) var scrollOffset = 0
  /// The filter line.
  public internal(set) var filter = FilterState()
  /// The table order.
  public internal(set) var sort = TableSort()
  /// The modal layer on top, if any.
  public internal(set) var overlay: Overlay?
  /// Whether the detail pane for the selected asset is shown.
  public internal(set) var showsDetail = false
  /// The asset the detail pane shows, nil while it is closed.
  public var detailFocus: String? { showsDetail ? selectedID : nil }
  /// Whether the event pane is shown.
  public internal(set) var showsEvents = true
  /// The engine's recent log lines.
  public internal(set) var log = EventLog()
  /// When each asset last changed, for the row highlight; expired entries are pruned on ticks.
  public internal(set) var changedAt: [String: Date] = [:]
  /// Events per second and the last arrival.
  public internal(set) var health = StreamHealth()
  /// Engine events that arrived while a confirm dialog froze the table, folded (bounded by the
  /// asset count and the log's capacity).
  public internal(set) var pendingEvents = PendingEvents()
  /// The terminal size: the one given at creation, then the last one a resize key reported; nil
  /// only for a state created without one.
  public internal(set) var terminalSize: TerminalSize?
  /// A short message for the footer.
  public internal(set) var notice: Notice?
  /// The table rows, kept between the changes that can move them (the reducer keeps it current).
  var rowOrder = RowOrder()
  /// The header's counts per STATE word, kept like the rows.
  var tally = StateTally()

  /// Creates an empty state waiting for the engine's first snapshot, on a terminal of
  /// `terminalSize` (what paging and scrolling go by until a resize key says otherwise).
  public init(options: DashboardOptions, terminalSize: TerminalSize? = nil) {
    self.options = options
    self.terminalSize = terminalSize
  }

  /// The asset with `id`, if known.
  public func asset(_ id: String) -> AssetStatus? {
    assetIndex(of: id).map { assets[$0] }
  }

  /// The position of the asset `id` in `assets`.
  func assetIndex(of id: String) -> Int? {
    if rowOrder.indexIsCurrent { return rowOrder.assetIndex[id] }
    return assets.firstIndex { $0.id == id }
  }

  /// The table rows at `now`: the assets that pass the filter, in the current order.
  public func rows(at now: Date) -> [AssetStatus] {
    Array(tableRows(at: now))
  }

  /// The table rows at `now` as a view into `assets`: the kept order when it holds at `now`,
  /// else a fresh one.
  func tableRows(at now: Date) -> TableRows {
    if rowOrder.isCurrent(sort: sort, filter: filter, at: now) {
      return TableRows(
        assets: assets, order: rowOrder.indices, rowOfID: rowOrder.rowOfID,
        longestIDWidth: rowOrder.longestIDWidth)
    }
    let order = RowOrder.order(assets, sort: sort, filter: filter, at: now)
    return TableRows(
      assets: assets, order: order, rowOfID: nil,
      longestIDWidth: order.lazy.map { DisplayWidth.of(assets[$0].id) }.max() ?? 0)
  }

  /// How many assets are in each STATE word at `now` (words with none are absent), and how many
  /// are behind the manifest's target: the kept counts when they hold, else counted now.
  func stateCounts(at now: Date) -> (counts: [AssetState: Int], behind: Int) {
    if tally.holds(at: now) { return (tally.counts, tally.behind) }
    var fresh = StateTally()
    fresh.recount(assets, at: now)
    return (fresh.counts, fresh.behind)
  }

  /// The index of the selected row in `rows`: the selected asset's row, or the nearest row when
  /// it is gone; `nil` when there are no rows.
  public func selectedIndex(in rows: [AssetStatus]) -> Int? {
    guard !rows.isEmpty else { return nil }
    if let selectedID, let index = rows.firstIndex(where: { $0.id == selectedID }) {
      return index
    }
    return min(max(0, selectedRowHint), rows.count - 1)
  }

  /// The index of the selected row in `rows` (see ``selectedIndex(in:)``).
  func selectedIndex(in rows: TableRows) -> Int? {
    guard !rows.isEmpty else { return nil }
    if let selectedID, let index = rows.row(of: selectedID) { return index }
    return min(max(0, selectedRowHint), rows.count - 1)
  }

  /// The selected asset, if any row is shown.
  public func selectedAsset(at now: Date) -> AssetStatus? {
    let rows = tableRows(at: now)
    return selectedIndex(in: rows).map { rows[$0] }
  }

  /// Whether the asset `id` changed recently enough to be highlighted at `now`.
  public func isRecentlyChanged(_ id: String, at now: Date) -> Bool {
    guard let at = changedAt[id] else { return false }
    let age = now.timeIntervalSince(at)
    return age >= 0 && age < Self.highlightDuration
  }

  /// Whether a confirm dialog is open (engine events are queued, keys answer it).
  public var isFrozen: Bool {
    if case .confirm = overlay { return true }
    return false
  }
}
