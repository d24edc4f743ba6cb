import Foundation

/// The one word the dashboard and `status` show for an asset (ARCHITECTURE.md, "State model").
///
/// It is always derived from an ``AssetStatus`` at a point in time, never stored.
public enum AssetState: String, Sendable, Codable, CaseIterable {
  /// Bytes are streaming in; the dashboard adds a percentage.
  case downloading = "DOWNLOADING"
  /// A conditional request is under way.
  case checking = "CHECKING"
  /// New bytes arrived and are being validated before commit.
  case validating = "VALIDATING"
  /// Checked successfully within `ttl`.
  case fresh = "FRESH"
  /// Past `ttl`, within `maxStale`.
  case stale = "STALE"
  /// Past `ttl + maxStale` (or past `ttl` under the server's `must-revalidate`); still served,
  /// flagged.
  case expired = "EXPIRED"
  /// The last attempt failed; the last good copy is still served.
  case failed = "FAILED"
  /// Serving the bundled copy, not yet refreshed.
  case bundled = "BUNDLED"
  /// No usable copy at all.
  case missing = "MISSING"

  /// Whether this state means work is under way right now (shown in cyan).
  public var isMoving: Bool {
    switch self {
    case .downloading, .checking, .validating: true
    default: false
    }
  }
}

/// Where the bytes served now come from.
public enum AssetSource: String, Sendable, Codable {
  /// A committed copy in the cache directory.
  case cached
  /// The copy shipped with the app.
  case bundled
  /// No usable copy.
  case none
}

/// Freshness of the last successful check (ARCHITECTURE.md, "State model").
package enum Freshness: String, Sendable, Codable {
  case fresh, stale, expired

  /// Classifies a check made at `checkedAt` at the time `now`.
  ///
  /// - Parameters:
  ///   - ttl: seconds a check stays fresh.
  ///   - maxStale: further seconds it stays stale before it is expired.
  ///   - mustRevalidate: the server's `must-revalidate`: no stale window at all, so past `ttl`
  ///     the check is expired.
  package static func of(
    checkedAt: Date, now: Date, ttl: TimeInterval, maxStale: TimeInterval,
    mustRevalidate: Bool = false
  ) -> Freshness {
    let age = now.timeIntervalSince(checkedAt)
    if age < ttl { return .fresh }
    if age < usableSeconds(ttl: ttl, maxStale: maxStale, mustRevalidate: mustRevalidate) {
      return .stale
    }
    return .expired
  }

  /// How long after a check the copy stays usable (fresh, then stale): `ttl`, plus `maxStale`
  /// unless the server said `must-revalidate`. Past it the copy is expired.
  package static func usableSeconds(
    ttl: TimeInterval, maxStale: TimeInterval, mustRevalidate: Bool
  ) -> TimeInterval {
    ttl + (mustRevalidate ? 0 : maxStale)
  }
}
