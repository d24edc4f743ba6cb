import AssetModel
import Foundation
import Logging

/// What the disk-budget core asks the engine to do, in order. The engine performs each and
/// feeds the result of a measure or a sweep back to the core (``BudgetCore/measured(_:for:limit:)``,
/// ``BudgetCore/swept(_:leftovers:limit:previous:)``, ``BudgetCore/sweepFailed(_:leftovers:)``).
enum BudgetAction: Sendable, Equatable {
  /// Measure the cache folder (no lock, no entry read); report the size with this purpose.
  case measure(BudgetCore.Measure)
  /// Sweep the cache (``CacheStore/sweep(keep:resumableIDs:budget:leftovers:)``) with what
  /// ``BudgetCore/sweepInput(ids:named:knowsAll:limit:)`` keeps; with `leftovers`, remove what
  /// the engine left behind too. Report the result.
  case sweep(leftovers: Bool)
  /// Another pass after commits is due: wait until the least time between two passes' starts
  /// (``AssetEngine/budgetPassInterval``) has gone by since this one started (shutdown cancels
  /// the wait).
  case pause
  /// The budget evicted `id`'s rollback copy: its record keeps no previous generation, knows
  /// `entry` as the one on disk, and subscribers hear of it.
  case dropPrevious(String, entry: CacheEntry)
  /// Log a line in the engine's log (about an asset, or the engine for nil).
  case log(String?, EngineLogEntry.Level, String)
  /// Write a line to the engine's logger (not shown to subscribers).
  case trace(Logger.Level, String, [String: String])
  /// The size measured: into the metrics, and (with `announce`) to subscribers.
  case usage(CacheUsage, announce: Bool)
}
