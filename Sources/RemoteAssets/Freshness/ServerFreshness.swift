import Foundation

/// What a server's response said about its own freshness, evaluated when it arrived: the value the
/// engine stores with a cached copy for an asset whose `ttl` is `"server"`.
///
/// Ages are measured from the check that received the response (the entry's `checkedAt`), so the
/// copy is fresh while `now - checkedAt < lifetime - initialAge` (RFC 9111 §4.2).
struct ServerFreshness: Codable, Sendable, Equatable {
  /// The fields a later 304 updates (`Cache-Control` and `Expires`, RFC 9111 §4.3.4).
  var headers: FreshnessHeaders
  /// `freshness_lifetime` in seconds; `nil` when the response carried no freshness information
  /// (the configured ttl applies then).
  var lifetime: TimeInterval?
  /// `corrected_initial_age`: how old the response already was when it was received.
  var initialAge: TimeInterval
  /// `must-revalidate`: past its lifetime the copy is expired, not merely stale.
  var mustRevalidate: Bool
  /// RFC 5861 `stale-while-revalidate`, in seconds past the lifetime.
  var staleWhileRevalidate: TimeInterval?
  /// RFC 5861 `stale-if-error`, in seconds past the lifetime.
  var staleIfError: TimeInterval?
  /// Why the lifetime is what it is, when the headers decided it unusually (a short sentence the
  /// engine wrote; never server text).
  var note: String?

  /// Seconds the copy stays fresh after the check that received it; 0 when it arrived stale.
  var remainingLifetime: TimeInterval? {
    lifetime.map { max(0, $0 - initialAge) }
  }
}
