import Foundation
import NIOHTTP1

/// The response header fields that decide freshness (RFC 9111 §4.2), as the server sent them.
///
/// A fetcher fills this in for ``FetchMetadata``; the engine keeps `cacheControl` and `expires`
/// with the cached copy so that a 304 can update them (RFC 9111 §4.3.4), and evaluates the lot
/// with ``FreshnessPolicy``. A custom fetcher that knows how long its data stays good can say so
/// with `FreshnessHeaders(cacheControl: ["max-age=60"])`.
package struct FreshnessHeaders: Sendable, Equatable, Codable {
  /// Every `Cache-Control` field line, in order.
  public var cacheControl: [String]
  /// The first `Expires` field value.
  public var expires: String?
  /// The first `Date` field value.
  public var date: String?
  /// The first `Age` field value.
  public var age: String?

  /// Creates the header set.
  public init(
    cacheControl: [String] = [], expires: String? = nil, date: String? = nil, age: String? = nil
  ) {
    self.cacheControl = cacheControl
    self.expires = expires
    self.date = date
    self.age = age
  }

  /// Picks the freshness fields out of a response's headers.
  public init(_ headers: HTTPHeaders) {
    self.init(
      cacheControl: headers["Cache-Control"], expires: headers.first(name: "Expires"),
      date: headers.first(name: "Date"), age: headers.first(name: "Age"))
  }

  /// The stored fields updated by a newer response for the same payload (a 304, RFC 9111
  /// §4.3.4): each field the newer response carries replaces the stored one. `Date` and `Age`
  /// always come from the newer response, since they describe that message, not the payload.
  public func updated(by newer: FreshnessHeaders) -> FreshnessHeaders {
    FreshnessHeaders(
      cacheControl: newer.cacheControl.isEmpty ? cacheControl : newer.cacheControl,
      expires: newer.expires ?? expires, date: newer.date, age: newer.age)
  }

  /// The fields worth keeping with a stored copy (what a 304 may leave out).
  var stored: FreshnessHeaders { FreshnessHeaders(cacheControl: cacheControl, expires: expires) }
}
