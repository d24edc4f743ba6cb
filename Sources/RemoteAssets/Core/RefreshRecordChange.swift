import AssetModel
import Foundation

/// A change a refresh makes to an asset's record in memory, as a value: the core decides it,
/// the engine applies it in place (``apply(to:)``).
struct RefreshRecordChange: Sendable, Equatable {
  /// The activity shown.
  var activity: AssetActivity?
  /// Automatic refresh stops (a 401 or 403) or starts again (a manual refresh).
  var autoRefreshBlocked: Bool?
  /// The entry's bookkeeping, in memory only (the freshness journal carries it).
  var entry: RefreshEntryChange?
  /// A live asset's renewed freshness was published at this time.
  var renewalPublishedAt: Date?
  /// A delta could not use the chunk index with this SHA-256 (``AssetRecord/indexRead``
  /// remembers it with no file).
  var unusableIndex: String?
  /// The count of delta attempts cut at the same point starts again.
  var clearsDeltaStall = false

  init(
    activity: AssetActivity? = nil, autoRefreshBlocked: Bool? = nil,
    entry: RefreshEntryChange? = nil, renewalPublishedAt: Date? = nil,
    unusableIndex: String? = nil, clearsDeltaStall: Bool = false
  ) {
    self.activity = activity
    self.autoRefreshBlocked = autoRefreshBlocked
    self.entry = entry
    self.renewalPublishedAt = renewalPublishedAt
    self.unusableIndex = unusableIndex
    self.clearsDeltaStall = clearsDeltaStall
  }

  /// Applies the change to `record` (nothing when the asset is gone).
  func apply(to record: inout AssetRecord?) {
    if let activity { record?.activity = activity }
    if let autoRefreshBlocked { record?.autoRefreshBlocked = autoRefreshBlocked }
    if let entry, record != nil { entry.apply(to: &record!.entry) }
    if let renewalPublishedAt { record?.renewalPublishedAt = renewalPublishedAt }
    if let unusableIndex { record?.indexRead = (unusableIndex, nil) }
    if clearsDeltaStall { record?.deltaStall = nil }
  }
}
