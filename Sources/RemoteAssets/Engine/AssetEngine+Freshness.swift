import Foundation

extension AssetEngine {
  /// Whether `id` is stale but inside the server's `stale-while-revalidate` window now, so a
  /// read may return the stale copy at once while a background refresh runs (RFC 5861 §3).
  func isWithinStaleWhileRevalidate(_ id: String) -> Bool {
    guard let record = core.records[id] else { return false }
    return record.status(store: store, paused: false).isWithinStaleWhileRevalidate(at: clock.now())
  }
}

extension LiveWatch {
  /// How often a watched live asset's renewed freshness is published: well inside its ttl (half
  /// of it), at most every poll and at least every 30 seconds.
  static func renewalInterval(ttl: TimeInterval) -> TimeInterval {
    max(pollInterval, min(ttl / 2, 30))
  }
}
