import Foundation
import Testing

@testable import RemoteAssets

/// The STATE word and its note from a status's server freshness, at injected times: one row per
/// rule (must-revalidate, stale-while-revalidate, stale-if-error, live watching).
@Suite struct FreshnessStateTests {
  static let checked = Date(timeIntervalSince1970: 1_795_000_000)

  struct Row: Sendable, CustomTestStringConvertible {
    var name: String
    var age: TimeInterval
    var state: AssetState
    var note: String?
    var withinSWR = false
    var ttl: TimeInterval = 60
    var mustRevalidate = false
    var swr: TimeInterval?
    var sie: TimeInterval?
    var failures = 0
    var live = false
    var freshnessNote: String?
    var testDescription: String { name }

    var status: AssetStatus {
      var s = AssetStatus(
        id: "a", source: .cached, checkedAt: FreshnessStateTests.checked,
        consecutiveFailures: failures, ttl: ttl, maxStale: 3600, isLive: live)
      s.mustRevalidate = mustRevalidate
      s.staleWhileRevalidate = swr
      s.staleIfError = sie
      s.freshnessNote = freshnessNote
      return s
    }
  }

  static let mustRevalidateNote =
    "must-revalidate: past its lifetime, needs a successful revalidation"
  static let staleIfErrorNote = "serving stale (stale-if-error)"

  static let rows: [Row] = [
    Row(name: "within ttl", age: 10, state: .fresh),
    Row(name: "at ttl", age: 60, state: .stale),
    Row(name: "past ttl + maxStale", age: 3661, state: .expired),
    Row(
      name: "a server note shows while stale", age: 0, state: .stale, note: "no-cache", ttl: 0,
      freshnessNote: "no-cache"),
    Row(name: "must-revalidate within ttl", age: 10, state: .fresh, mustRevalidate: true),
    Row(
      name: "must-revalidate past ttl is expired", age: 61, state: .expired,
      note: mustRevalidateNote, mustRevalidate: true),
    Row(
      name: "inside stale-while-revalidate", age: 70, state: .stale,
      note: "stale-while-revalidate", withinSWR: true, swr: 30),
    Row(name: "stale-while-revalidate not yet", age: 59, state: .fresh, swr: 30),
    Row(name: "past stale-while-revalidate", age: 90, state: .stale, swr: 30),
    Row(
      name: "must-revalidate cancels stale-while-revalidate", age: 70, state: .expired,
      note: mustRevalidateNote, mustRevalidate: true, swr: 30),
    Row(name: "a failure without stale-if-error", age: 70, state: .failed, failures: 1),
    Row(
      name: "a failure inside stale-if-error", age: 70, state: .stale, note: staleIfErrorNote,
      sie: 100, failures: 2),
    Row(
      name: "a failure while fresh, with stale-if-error", age: 10, state: .stale,
      note: staleIfErrorNote, sie: 100, failures: 1),
    Row(name: "a failure past stale-if-error", age: 160, state: .failed, sie: 100, failures: 1),
    Row(
      name: "must-revalidate cancels stale-if-error", age: 70, state: .failed,
      mustRevalidate: true, sie: 100, failures: 1),
    Row(name: "a watched live asset", age: 1, state: .fresh, note: "watching", live: true),
    Row(name: "a live asset nobody renews", age: 61, state: .stale, live: true),
  ]

  @Test(arguments: rows)
  func state(_ row: Row) {
    let now = Self.checked.addingTimeInterval(row.age)
    #expect(row.status.state(at: now) == row.state)
    #expect(row.status.stateNote(at: now) == row.note)
    #expect(row.status.isWithinStaleWhileRevalidate(at: now) == row.withinSWR)
  }

  @Test func mustRevalidateHasNoStaleWindow() {
    let t0 = Self.checked
    #expect(
      Freshness.of(
        checkedAt: t0, now: t0.addingTimeInterval(61), ttl: 60, maxStale: 3600,
        mustRevalidate: true) == .expired)
    #expect(
      Freshness.of(checkedAt: t0, now: t0.addingTimeInterval(61), ttl: 60, maxStale: 3600)
        == .stale)
  }

  /// Entries written before server freshness was stored still decode, and their max-age counts.
  @Test func entriesFromOlderVersionsStillDecode() throws {
    let json = #"""
      {"formatVersion": 1, "id": "a", "appVersion": "1.0.0", "checkedAt": "2026-11-18T11:06:40Z",
       "serverTTL": 60, "consecutiveFailures": 0}
      """#
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let entry = try decoder.decode(CacheEntry.self, from: Data(json.utf8))
    #expect(entry.serverFreshness == nil)
    let definition = AssetDefinition(
      id: "a", remote: URL(string: "https://example.com/a"), ttl: .server(fallback: 300))
    var record = AssetRecord(definition: definition, entry: entry)
    #expect(record.effectiveTTL == 60)

    // A new entry round-trips its server freshness, which then decides the ttl.
    record.entry.serverFreshness = FreshnessPolicy.evaluate(
      FreshnessHeaders(cacheControl: ["max-age=600, stale-if-error=60"], age: "100"),
      requestedAt: Self.checked, receivedAt: Self.checked)
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    let decoded = try decoder.decode(CacheEntry.self, from: encoder.encode(record.entry))
    #expect(decoded == record.entry)
    #expect(record.effectiveTTL == 500)
    var fixed = record
    fixed.definition.ttl = .seconds(30)
    #expect(fixed.effectiveTTL == 30, "a fixed ttl ignores the server")
  }
}
