import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// A `live` asset whose file does not change stays FRESH while it is watched: the polls renew its
/// freshness for subscribers (a dashboard) and on disk, not only in the engine's memory.
@Suite struct LiveFreshnessTests {
  @Test func aWatchedUnchangedFileStaysFreshPastItsTTL() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let source = try dir.file("live/filter.js", "let version = 1\n")
    let asset = AssetDefinition(
      id: "filter", remote: source, format: .text, refresh: .live, ttl: .seconds(1))
    let cache = dir.url.appendingPathComponent("cache")
    let engine = try makeTestEngine([asset], cache: cache)
    await engine.start()
    let events = await engine.events()
    await engine.startAutoRefresh()
    let committed = await firstEvent(in: events) {
      if case .assetChanged(let s) = $0 { s.source == .cached && s.checkedAt != nil } else { false }
    }
    guard case .assetChanged(let first)? = committed, let firstCheck = first.checkedAt else {
      Issue.record("the file was never committed")
      await engine.shutdown()
      return
    }
    // The file never changes; past its one-second ttl a subscriber still sees it FRESH.
    let renewed = await firstEvent(in: events) {
      guard case .assetChanged(let s) = $0, let checked = s.checkedAt else { return false }
      return checked.timeIntervalSince(firstCheck) > 1.5 && s.state(at: checked) == .fresh
    }
    guard case .assetChanged(let later)? = renewed, let checked = later.checkedAt else {
      Issue.record("no renewed freshness reached the subscriber")
      await engine.shutdown()
      return
    }
    #expect(later.stateNote(at: checked) == "watching")
    #expect(later.history.count == first.history.count, "renewals are not refresh history")
    await engine.shutdown()
    // What the next process starts from has the renewal too.
    let reopened = try #require(try await statusAfterOfflineStart(asset, cache: cache))
    // Stored times are whole seconds: a renewal 1.5 s after the first check lands at least
    // one second after the first check's stored (floored) time; without it, exactly on it.
    let storedFirst = Date(timeIntervalSince1970: firstCheck.timeIntervalSince1970.rounded(.down))
    #expect(
      try #require(reopened.checkedAt).timeIntervalSince(storedFirst) >= 1, "renewed on disk too")
  }
}
