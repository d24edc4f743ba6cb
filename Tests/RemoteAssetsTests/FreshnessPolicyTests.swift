import Foundation
import Testing

@testable import RemoteAssets

/// RFC 9111 §4.2 lifetime and age, and the RFC 5861 windows, from headers and the times of the
/// exchange: one row per rule.
@Suite struct FreshnessPolicyTests {
  static let received = Date(timeIntervalSince1970: 1_795_000_000)  // Wed, 18 Nov 2026 11:06:40
  static func date(_ offset: TimeInterval) -> String {
    HTTPDate.format(received.addingTimeInterval(offset))
  }

  struct Row: Sendable, CustomTestStringConvertible {
    var name: String
    var headers: FreshnessHeaders
    /// Seconds between sending the request and receiving the response.
    var delay: TimeInterval = 0
    var lifetime: TimeInterval?
    var initialAge: TimeInterval = 0
    var mustRevalidate = false
    var swr: TimeInterval?
    var sie: TimeInterval?
    var noted = false
    var testDescription: String { name }
  }

  static let rows: [Row] = [
    Row(name: "no freshness information: the config's ttl", headers: .init(), lifetime: nil),
    Row(name: "max-age", headers: .init(cacheControl: ["max-age=60"]), lifetime: 60),
    Row(
      name: "quoted max-age", headers: .init(cacheControl: ["max-age=\"3600\""]), lifetime: 3600),
    Row(
      name: "invalid max-age is stale, not absent",
      headers: .init(cacheControl: ["max-age=a100"]), lifetime: 0, noted: true),
    Row(
      name: "invalid max-age wins over Expires",
      headers: .init(cacheControl: ["max-age= 100"], expires: date(1000), date: date(0)),
      lifetime: 0, noted: true),
    Row(
      name: "max-age wins over Expires",
      headers: .init(cacheControl: ["max-age=10"], expires: date(1000), date: date(0)),
      lifetime: 10),
    Row(
      name: "Expires minus Date", headers: .init(expires: date(100), date: date(-20)),
      lifetime: 120, initialAge: 20),
    Row(
      name: "Expires without Date counts from the response time",
      headers: .init(expires: date(100)), lifetime: 100),
    Row(
      name: "Expires in RFC 850 form",
      headers: .init(expires: "Wednesday, 18-Nov-26 11:07:40 GMT", date: date(0)), lifetime: 60),
    Row(
      name: "Expires in asctime form, Date in RFC 850 form",
      headers: .init(
        expires: "Wed Nov 18 11:08:40 2026", date: "Wednesday, 18-Nov-26 11:05:40 GMT"),
      lifetime: 180, initialAge: 60),
    Row(
      name: "Expires in the past", headers: .init(expires: date(-100), date: date(0)),
      lifetime: 0, noted: true),
    Row(
      name: "Expires equal to Date", headers: .init(expires: date(0), date: date(0)),
      lifetime: 0, noted: true),
    Row(
      name: "invalid Expires is already expired", headers: .init(expires: "0", date: date(0)),
      lifetime: 0, noted: true),
    Row(
      name: "invalid Expires (-1)", headers: .init(expires: "-1"), lifetime: 0, noted: true),
    Row(
      name: "Age is part of the initial age",
      headers: .init(cacheControl: ["max-age=600"], age: "100"), lifetime: 600, initialAge: 100),
    Row(
      name: "Age larger than max-age arrives stale",
      headers: .init(cacheControl: ["max-age=60"], age: "100"), lifetime: 60, initialAge: 100,
      noted: true),
    Row(
      name: "response delay is added to Age",
      headers: .init(cacheControl: ["max-age=600"], age: "30"), delay: 5, lifetime: 600,
      initialAge: 35),
    Row(
      name: "response delay alone", headers: .init(cacheControl: ["max-age=600"]), delay: 4,
      lifetime: 600, initialAge: 4),
    Row(
      name: "apparent age from Date",
      headers: .init(cacheControl: ["max-age=600"], date: date(-20)), lifetime: 600,
      initialAge: 20),
    Row(
      name: "the larger of apparent and corrected age",
      headers: .init(cacheControl: ["max-age=600"], date: date(-20), age: "5"), lifetime: 600,
      initialAge: 20),
    Row(
      name: "a Date in the future gives no negative age",
      headers: .init(cacheControl: ["max-age=600"], date: date(300)), lifetime: 600,
      initialAge: 0),
    Row(
      name: "an invalid Date counts as the response time",
      headers: .init(cacheControl: ["max-age=600"], date: "yesterday"), lifetime: 600),
    Row(
      name: "an invalid Age is ignored",
      headers: .init(cacheControl: ["max-age=600"], age: "-5"), lifetime: 600),
    Row(
      name: "a huge Age is 2^31",
      headers: .init(cacheControl: ["max-age=600"], age: "99999999999"), lifetime: 600,
      initialAge: 2_147_483_648, noted: true),
    Row(
      name: "no-cache always revalidates",
      headers: .init(cacheControl: ["max-age=600, no-cache"]), lifetime: 0, noted: true),
    Row(
      name: "no-store is read as no-cache", headers: .init(cacheControl: ["no-store"]),
      lifetime: 0, noted: true),
    Row(
      name: "must-revalidate", headers: .init(cacheControl: ["max-age=60, must-revalidate"]),
      lifetime: 60, mustRevalidate: true),
    Row(
      name: "RFC 5861 windows",
      headers: .init(cacheControl: ["max-age=1, stale-while-revalidate=30, stale-if-error=600"]),
      lifetime: 1, swr: 30, sie: 600),
    Row(
      name: "must-revalidate forbids serving stale",
      headers: .init(
        cacheControl: ["max-age=1, must-revalidate, stale-while-revalidate=30, stale-if-error=60"]),
      lifetime: 1, mustRevalidate: true),
    Row(
      name: "no-cache forbids serving stale",
      headers: .init(cacheControl: ["no-cache, stale-if-error=60"]), lifetime: 0, noted: true),
    Row(
      name: "invalid RFC 5861 values are ignored",
      headers: .init(cacheControl: ["max-age=1, stale-while-revalidate=1e3, stale-if-error=-1"]),
      lifetime: 1),
  ]

  @Test(arguments: rows)
  func evaluate(_ row: Row) {
    let f = FreshnessPolicy.evaluate(
      row.headers, requestedAt: Self.received.addingTimeInterval(-row.delay),
      receivedAt: Self.received)
    #expect(f.lifetime == row.lifetime)
    #expect(f.initialAge == row.initialAge)
    #expect(f.mustRevalidate == row.mustRevalidate)
    #expect(f.staleWhileRevalidate == row.swr)
    #expect(f.staleIfError == row.sie)
    #expect((f.note != nil) == row.noted, "\(f.note ?? "no note")")
    #expect(f.remainingLifetime == row.lifetime.map { max(0, $0 - row.initialAge) })
    // Only what a 304 may update is stored.
    #expect(
      f.headers
        == FreshnessHeaders(cacheControl: row.headers.cacheControl, expires: row.headers.expires))
  }

  /// RFC 9111 §4.3.4: a 304 replaces the stored fields it carries; Date and Age are its own.
  @Test func notModifiedUpdatesStoredHeaders() {
    let stored = FreshnessHeaders(
      cacheControl: ["max-age=60"], expires: "Sun, 06 Nov 1994 08:49:37 GMT")
    let bare = stored.updated(by: FreshnessHeaders(date: "Mon, 07 Nov 1994 08:49:37 GMT"))
    #expect(bare.cacheControl == ["max-age=60"])
    #expect(bare.expires == stored.expires)
    #expect(bare.date == "Mon, 07 Nov 1994 08:49:37 GMT")
    let newer = stored.updated(by: FreshnessHeaders(cacheControl: ["max-age=600"], age: "3"))
    #expect(newer.cacheControl == ["max-age=600"])
    #expect(newer.age == "3")
    #expect(newer.date == nil)
    let expires = stored.updated(by: FreshnessHeaders(expires: "0"))
    #expect(expires.expires == "0")
  }
}
