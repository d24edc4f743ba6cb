import Foundation

/// The periodic work a scheduler tick starts, in order (``SchedulerCore/tick(at:_:order:records:)``).
enum SchedulerAction: Sendable, Equatable {
  /// Start a look for other processes' changes (none is running).
  case reloadExternalChanges
  /// Start writing the freshness journal (no write is running).
  case flushFreshness
  /// Start a manifest check, waking the scheduler when it ends.
  case checkManifest
  /// Start every due asset's refresh (``SchedulerCore/scan(order:records:inFlight:at:manifestPending:)``)
  /// and report with ``SchedulerCore/scanned(_:at:)``.
  case scanAssets
}
