import Foundation

extension AssetStatus {
  /// Whether the copy is stale but inside the server's `stale-while-revalidate` window at `now`:
  /// it may be served at once while one background revalidation runs (RFC 5861 §3).
  public func isWithinStaleWhileRevalidate(at now: Date) -> Bool {
    guard let window = staleWhileRevalidate, !mustRevalidate, consecutiveFailures == 0,
      let checkedAt
    else { return false }
    let age = now.timeIntervalSince(checkedAt)
    return age >= ttl && age < ttl + window
  }

  /// Whether a failed revalidation is covered by the server's `stale-if-error` at `now`: the copy
  /// keeps being served, shown `STALE` rather than `FAILED` (RFC 5861 §4).
  public func isServingStaleIfError(at now: Date) -> Bool {
    guard let window = staleIfError, !mustRevalidate, consecutiveFailures > 0,
      source != .none, let checkedAt
    else { return false }
    return now.timeIntervalSince(checkedAt) < ttl + window
  }

  /// A few words on why the asset is in its state at `now`, when that is not obvious from the
  /// STATE word alone: `watching` for a live asset kept fresh by its file watch, the RFC 5861
  /// window in force, `must-revalidate` past the lifetime, or the server's freshness note.
  public func stateNote(at now: Date) -> String? {
    let state = state(at: now)
    switch state {
    case .fresh:
      return isLive ? "watching" : nil
    case .stale:
      if isServingStaleIfError(at: now) { return "serving stale (stale-if-error)" }
      if isWithinStaleWhileRevalidate(at: now) { return "stale-while-revalidate" }
      return freshnessNote
    case .expired:
      if mustRevalidate, let checkedAt, now.timeIntervalSince(checkedAt) < ttl + maxStale {
        return "must-revalidate: past its lifetime, needs a successful revalidation"
      }
      return freshnessNote
    default:
      return nil
    }
  }
}
