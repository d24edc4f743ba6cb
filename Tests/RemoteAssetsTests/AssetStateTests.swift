import Foundation
import RemoteAssetsTestKit
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

/// A pause is the engine's state: each asset keeps its own word (FRESH, STALE, ...), and the
/// engine says since when it is paused.
@Test func pausingKeepsEachAssetsStateAndTheEngineSaysSinceWhen() async throws {
  let now = Date(timeIntervalSince1970: 2_000_000_000)
  let fresh = AssetStatus(
    id: "a", source: .cached, version: "v1", size: 1, checkedAt: now.addingTimeInterval(-5),
    paused: true)
  #expect(fresh.state(at: now) == .fresh)
  var expired = fresh
  expired.checkedAt = now.addingTimeInterval(-1_000_000)
  #expect(expired.state(at: now) == .expired)

  let clock = ManualClock(now: now)
  try await withEngine(
    [AssetDefinition(id: "a", remote: nil, bundled: .bytes(Data("x".utf8)), format: .text)],
    clock: clock
  ) { engine, _ in
    #expect(await engine.info().pausedAt == nil)
    await engine.pauseAutoRefresh()
    #expect(await engine.info().pausedAt == now)
    #expect(await engine.info().autoRefreshPaused)
    #expect(await engine.statuses().allSatisfy { $0.paused && $0.state(at: now) == .bundled })
    await engine.resumeAutoRefresh()
    #expect(await engine.info().pausedAt == nil)
  }
}
