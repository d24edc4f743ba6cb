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

  init(
    activity: AssetActivity? = nil, autoRefreshBlocked: Bool? = nil,
    entry: RefreshEntryChange? = nil, renewalPublishedAt: Date? = nil
  ) {
    self.activity = activity
    self.autoRefreshBlocked = autoRefreshBlocked
    self.entry = entry
    self.renewalPublishedAt = renewalPublishedAt
  }

  /// Applies the change to `record` (nothing when the asset is gone).
  func apply(to record: inout AssetRecord?) {
    if let activity { record?.activity = activity }
    if let autoRefreshBlocked { record?.autoRefreshBlocked = autoRefreshBlocked }
    if let entry, record != nil { entry.apply(to: &record!.entry) }
    if let renewalPublishedAt { record?.renewalPublishedAt = renewalPublishedAt }
  }
}
