import AssetModel
import Foundation

extension DashboardState {
  /// Brings the kept table rows up to date at `now`: recomputes them only when something they
  /// depend on changed since (the reducer calls this after every input).
  mutating func refreshRows(at now: Date) {
    if !rowOrder.indexIsCurrent { rowOrder.reindex(assets) }
    if !tally.holds(at: now) { tally.recount(assets, at: now) }
    guard !rowOrder.isCurrent(sort: sort, filter: filter, at: now) else { return }
    rowOrder.recompute(assets, sort: sort, filter: filter, at: now)
  }

  /// Replaces the asset at `index` with `status` (the same asset, newer) at `now`; the kept rows
  /// survive when the change cannot move a row: the field the sort reads compares the same and
  /// the filter still lets it through, or still does not.
  mutating func replaceAsset(at index: Int, with status: AssetStatus, now: Date) {
    let old = assets[index]
    let sameID = old.id == status.id
    let keepsOrder =
      sameID && rowOrder.isCurrent(sort: sort, filter: filter, at: now)
      && sort.compare(old, status, now: now) == .orderedSame
      && (filter.text.isEmpty || filter.matches(old, now: now) == filter.matches(status, now: now))
    let indexWasCurrent = rowOrder.indexIsCurrent
    let tallyWasCurrent = tally.holds(at: now)
    assets[index] = status
    tally.replaced(old, with: status, at: now, wasCurrent: tallyWasCurrent)
    rowOrder.replacedInPlace(
      keepsOrder: keepsOrder, wasIndexCurrent: indexWasCurrent && sameID, replacement: status,
      at: now)
  }

  /// Adds `status` after the others at `now`; in the engine's order (not reversed) with no
  /// filter, it simply becomes the last row.
  mutating func appendAsset(_ status: AssetStatus, now: Date) {
    let indexWasCurrent = rowOrder.indexIsCurrent && rowOrder.assetIndex[status.id] == nil
    let keepsOrder =
      sort.column == .config && !sort.reversed && filter.text.isEmpty
      && rowOrder.isCurrent(sort: sort, filter: filter, at: now)
    let tallyWasCurrent = tally.holds(at: now)
    assets.append(status)
    tally.appended(status, at: now, wasCurrent: tallyWasCurrent)
    rowOrder.appended(
      status, at: assets.count - 1, keepsOrder: keepsOrder, wasIndexCurrent: indexWasCurrent)
  }
}
