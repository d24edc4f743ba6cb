import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// A copy held without an ETag or Last-Modified is asked for unconditionally: a 304 to that
/// request is the server's mistake, not a renewal of the copy's freshness.
@Suite struct UnconditionalNotModifiedTests {
  static let url = URL(string: "https://cdn.example.com/flags.json")!

  @Test func aNotModifiedWithoutValidatorsSentIsUnconditional() {
    var entry = CacheEntry(id: "flags", appVersion: "1")
    entry.current = Generation(
      sha256: String(repeating: "a", count: 64), size: 10, version: nil, etag: nil,
      lastModified: nil, remote: Self.url.absoluteString, fetchedAt: Date())
    let validators = AssetRefreshLifecycle.validators(entry, for: Self.url)
    #expect(validators.haveCurrent && !validators.isConditional)
    #expect(AssetRefreshLifecycle.notModified(entry, conditional: validators) == .unconditional)
    // Either validator alone makes the request conditional.
    entry.current?.lastModified = "Wed, 25 Nov 2026 10:00:00 GMT"
    let dated = AssetRefreshLifecycle.validators(entry, for: Self.url)
    #expect(AssetRefreshLifecycle.notModified(entry, conditional: dated) == .bookkeeping)
  }

  @Test func anOriginAnsweringNotModifiedToEverythingDoesNotRenewACopyWithoutValidators()
    async throws
  {
    let v1 = Data(#"{"v": 1}"#.utf8)
    try await withOrigin { origin in
      // No ETag, no Last-Modified.
      await origin.setHandler("/a.json") { _ in .data(v1, contentType: "application/json") }
      let asset = AssetDefinition(
        id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json)
      try await withEngine([asset]) { engine, _ throws in
        #expect(await engine.refresh("a").isUpdated)
        await origin.setHandler("/a.json") { _ in OriginResponse(status: 304) }
        let outcome = await engine.refresh("a")
        let second = try #require(await origin.requests(path: "/a.json").last)
        #expect(second.header("If-None-Match") == nil)
        #expect(second.header("If-Modified-Since") == nil)
        let failure = try #require(outcome.failure, "\(outcome)")
        #expect(failure.status == 304)
        #expect(failure.message.contains("unconditional"), "\(failure.message)")
        // The copy held is still served.
        #expect(try await engine.data("a") == v1)
        #expect(await engine.status("a")?.lastError != nil)
      }
    }
  }
}
