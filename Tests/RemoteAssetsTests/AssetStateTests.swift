import Foundation
import Testing

@testable import RemoteAssets

@Test func freshnessWindows() {
  let t0 = Date(timeIntervalSince1970: 1_000_000)
  #expect(
    Freshness.of(checkedAt: t0, now: t0.addingTimeInterval(10), ttl: 60, maxStale: 60) == .fresh)
  #expect(
    Freshness.of(checkedAt: t0, now: t0.addingTimeInterval(90), ttl: 60, maxStale: 60) == .stale)
  #expect(
    Freshness.of(checkedAt: t0, now: t0.addingTimeInterval(121), ttl: 60, maxStale: 60) == .expired)
}

@Test func sanitizeStripsEscapes() {
  #expect(TerminalText.sanitize("\u{1B}]0;owned\u{07}\"v1\"\u{1B}[31m") == "]0;owned\"v1\"[31m")
}
