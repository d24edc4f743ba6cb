import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Two engines on one cache folder, as a running dashboard and a CLI `status` beside it: what
/// an unchanged (304) check learned reaches the freshness journal soon, so a freshly started
/// engine shows the same CHECKED as the running one (it once lagged up to 30 s).
@Suite struct SharedCacheFreshnessTests {
  @Test func anUnchangedCheckIsSeenByAnEngineStartedSoonAfter() async throws {
    try await withTemporaryDirectory { dir in
      let start = Date(timeIntervalSince1970: 1_800_000_000)
      let clock = ManualClock(now: start)
      let fetcher = ScriptedFetcher()
      fetcher.set("v1", etag: "\"1\"")
      let asset = AssetDefinition(
        id: "flags", remote: URL(string: "scripted://flags"), format: .text,
        refresh: .every(3600))
      try await withEngine([asset], cache: dir.cache, clock: clock, fetchers: [fetcher]) { a in
        #expect(await a.refresh("flags").isUpdated)
        await a.startAutoRefresh()
        // The scheduler has had its first tick and sleeps: any rhythm it keeps has begun.
        for _ in 0..<10_000 where clock.pendingDeadlines.isEmpty {
          try await Task.sleep(for: .milliseconds(1))
        }
        #expect(!clock.pendingDeadlines.isEmpty)
        clock.advance(by: 5)
        let outcome = await a.refresh("flags")
        #expect("\(outcome)" == "\(RefreshOutcome.notModified)")
        let checked = try #require(await a.status("flags")?.checkedAt)
        #expect(checked == start + 5)

        // The journal is written at the next tick after the check (polled, with a deadline for
        // a loaded machine; with the old 30 s rhythm it was not written within seconds). The
        // clock moves on a second at a time: the tick that `advance(by: 5)` woke may have come
        // before the check ended, and a clock that then stood still would never tick again.
        let store = try CacheStore(root: dir.cache)
        let deadline = ContinuousClock.now + .seconds(10)
        while FreshnessJournal.read(store)["flags"]?.checkedAt != checked,
          ContinuousClock.now < deadline
        {
          clock.advance(by: 1)
          try await Task.sleep(for: .milliseconds(10))
        }
        try await withEngine([asset], cache: dir.cache, fetchers: []) { b in
          #expect(await b.status("flags")?.checkedAt == checked, "B reads what A checked")
        }
        await a.stopAutoRefresh()
      }
    }
  }
}
