import AssetModel
import Foundation
import TerminalCore

/// The table's rows (the assets that pass the filter, in the sort order), kept between changes.
///
/// Filtering and sorting every asset on each tick and each event cost an idle dashboard of
/// thousands of assets a visible share of a core. The order is recomputed only when something it
/// depends on changed: the sort, the filter text, the set of assets, a field the sort or the
/// filter reads, or the moment some asset's STATE word turns with time (only when the order
/// depends on the STATE word: sorting by it, or any filter, which also matches the word).
///
/// Derived data: two states that agree on everything else show the same rows, so the cache
/// never makes them unequal (see `==`).
struct RowOrder: Sendable, Equatable {
  /// Indices into `DashboardState.assets`, in table order.
  private(set) var indices: [Int] = []
  /// The row of each shown asset.
  private(set) var rowOfID: [String: Int] = [:]
  /// The widest shown id, in terminal columns.
  private(set) var longestIDWidth = 0
  /// The index in `DashboardState.assets` of each asset id.
  private(set) var assetIndex: [String: Int] = [:]
  /// How many times the rows were filtered and sorted (tests check that events which cannot move
  /// a row cost no sort).
  private(set) var computations = 0

  /// Whether `indices` still describes the assets (cleared by any change to the asset list that
  /// the reducer did not prove harmless).
  private(set) var orderIsCurrent = false
  /// Whether `assetIndex` still describes the assets.
  private(set) var indexIsCurrent = false
  private var sort = TableSort()
  private var filterText = ""
  /// The time range the order holds for when it depends on time: from the computation to the
  /// first moment an asset's STATE word may turn.
  private var computedAt = Date.distantPast
  private var validUntil = Date.distantFuture
  private var dependsOnTime = false

  /// Whether the order holds for `sort` and `filter` at `now`.
  func isCurrent(sort: TableSort, filter: FilterState, at now: Date) -> Bool {
    guard orderIsCurrent, sort == self.sort, filter.text == filterText else { return false }
    return !dependsOnTime || (computedAt <= now && now < validUntil)
  }

  /// Whether the order may depend on the STATE word (so on time).
  static func dependsOnTime(sort: TableSort, filter: FilterState) -> Bool {
    sort.column == .state || !filter.text.isEmpty
  }

  /// Forgets the order and the id index: the asset list changed in a way nobody checked.
  mutating func assetsChanged() {
    orderIsCurrent = false
    indexIsCurrent = false
  }

  /// Takes back the validity `assetsChanged` cleared after one asset was replaced in place at
  /// `now` (same id, same position): the id index holds, and the order too when `keepsOrder`
  /// (from `now` until the replacement's or another asset's STATE word may turn).
  mutating func replacedInPlace(
    keepsOrder: Bool, wasIndexCurrent: Bool, replacement: AssetStatus, at now: Date
  ) {
    indexIsCurrent = wasIndexCurrent
    guard keepsOrder else { return }
    orderIsCurrent = true
    if dependsOnTime {
      computedAt = max(computedAt, now)
      validUntil = min(validUntil, Self.nextStateChange(of: replacement, after: now))
    }
  }

  /// Takes back the validity `assetsChanged` cleared after `asset` was added at `position`
  /// (the end): the id index gains it, and the order, when `keepsOrder` (the engine's order, no
  /// filter), gains it as the last row.
  mutating func appended(
    _ asset: AssetStatus, at position: Int, keepsOrder: Bool, wasIndexCurrent: Bool
  ) {
    if wasIndexCurrent {
      assetIndex[asset.id] = position
      indexIsCurrent = true
    }
    guard keepsOrder else { return }
    rowOfID[asset.id] = indices.count
    indices.append(position)
    longestIDWidth = max(longestIDWidth, DisplayWidth.of(asset.id))
    orderIsCurrent = true
  }

  /// Rebuilds the id index.
  mutating func reindex(_ assets: [AssetStatus]) {
    assetIndex = Dictionary(
      assets.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { a, _ in a })
    indexIsCurrent = true
  }

  /// Filters and sorts `assets` for `sort` and `filter` at `now`, and remembers the result.
  mutating func recompute(
    _ assets: [AssetStatus], sort: TableSort, filter: FilterState, at now: Date
  ) {
    computations &+= 1
    indices = Self.order(assets, sort: sort, filter: filter, at: now)
    rowOfID = Dictionary(
      indices.enumerated().map { (assets[$0.element].id, $0.offset) },
      uniquingKeysWith: { a, _ in a })
    longestIDWidth = indices.lazy.map { DisplayWidth.of(assets[$0].id) }.max() ?? 0
    self.sort = sort
    filterText = filter.text
    computedAt = now
    dependsOnTime = Self.dependsOnTime(sort: sort, filter: filter)
    validUntil =
      dependsOnTime
      ? assets.lazy.map { Self.nextStateChange(of: $0, after: now) }.min() ?? .distantFuture
      : .distantFuture
    orderIsCurrent = true
  }

  /// The table order of `assets` at `now`, as indices into `assets`.
  static func order(
    _ assets: [AssetStatus], sort: TableSort, filter: FilterState, at now: Date
  ) -> [Int] {
    let shown = assets.indices.filter { filter.matches(assets[$0], now: now) }
    return sort.apply(shown, of: assets, now: now)
  }

  /// The first moment after `now` at which `asset`'s STATE word may turn by time alone (it may
  /// also not turn then: an early answer only costs a recomputation).
  static func nextStateChange(of asset: AssetStatus, after now: Date) -> Date {
    guard let checkedAt = asset.checkedAt else { return .distantFuture }
    var turns = [asset.ttl, asset.ttl + asset.maxStale]
    if let window = asset.staleIfError { turns.append(asset.ttl + window) }
    return turns.lazy.map { checkedAt.addingTimeInterval($0) }.filter { $0 > now }.min()
      ?? .distantFuture
  }

  /// Always equal: the rows are derived from the rest of the state.
  static func == (lhs: RowOrder, rhs: RowOrder) -> Bool { true }
}
