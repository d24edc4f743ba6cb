import AssetWatchTestKit
import Crypto
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The engine's event log reads as sentences: counts agree with their nouns (`1 asset`), and a
/// message's own full stop never sits before the clause joined after it (`parse.; retry`).
@Suite struct EngineWordsTests {
  @Test func countsAgreeWithTheirNoun() {
    #expect(CountText.of(1, "asset") == "1 asset")
    #expect(CountText.of(0, "asset") == "0 assets")
    #expect(CountText.of(2, "asset") == "2 assets")
    #expect(CountText.of(1, "entry", plural: "entries") == "1 entry")
    #expect(CountText.of(3, "entry", plural: "entries") == "3 entries")
  }

  @Test func aFullStopIsDroppedBeforeAJoinedClause() {
    #expect(SentenceText.withoutFullStop("JSON parse.") == "JSON parse")
    #expect(SentenceText.withoutFullStop("wait...") == "wait...", "an ellipsis stays")
    #expect(SentenceText.withoutFullStop("HTTP 503") == "HTTP 503")
    #expect(
      SentenceText.joined([
        "invalid JSON: Unexpected end of file during JSON parse.", "retry in 2s",
      ])
        == "invalid JSON: Unexpected end of file during JSON parse; retry in 2s")
    #expect(SentenceText.joined(["a.", "b."]) == "a; b.", "the last keeps its own")
    #expect(SentenceText.joined([]) == "")
  }

  @Test func aFailureMessageNeverReadsFullStopSemicolon() {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let error = FetchError(.invalid, "invalid JSON: Unexpected end of file during JSON parse.")
    let message = AssetRefreshLifecycle.failureMessage(
      error, serving: .bundled, plan: .at(now + 2), at: now)
    #expect(
      message
        == "invalid JSON: Unexpected end of file during JSON parse; keeping the bundled copy; retry in 2s"
    )
  }

  /// The log line a refused body leaves, read from the engine's events.
  @Test func theEngineLogsARefusedBodyWithoutAStrayFullStop() async throws {
    let fetcher = ScriptedFetcher()
    fetcher.set("{", etag: "\"1\"")
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "scripted://flags"), bundled: .bytes(Data("{}".utf8)),
      format: .json)
    try await withEngine([asset], fetchers: [fetcher]) { engine, _ in
      let events = await engine.events()
      _ = await engine.refresh("flags")
      let event = await firstEvent(in: events) {
        if case .log(let entry) = $0 {
          entry.assetID == "flags" && entry.level != .info
        } else {
          false
        }
      }
      guard case .log(let entry)? = event else {
        Issue.record("no log line for the refused body")
        return
      }
      #expect(entry.message.hasPrefix("invalid JSON"), "\(entry.message)")
      #expect(entry.message.contains("; keeping the bundled copy"), "\(entry.message)")
      #expect(!entry.message.contains(".;"), "\(entry.message)")
    }
  }

  /// A manifest of one asset says `1 asset` in the event log.
  @Test func aManifestOfOneAssetIsSingular() async throws {
    let body = Data(#"{"v":1}"#.utf8)
    let sha = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
    try await withOrigin { origin in
      await origin.setResource("/a.json", body: body, contentType: "application/json")
      await origin.setResource(
        "/manifest.json",
        body: Data(
          """
          {"version":"m1","assets":[{"id":"a","url":"/a.json","sha256":"\(sha)",\
          "size":\(body.count),"version":"v1"}]}
          """.utf8),
        contentType: "application/json")
      try await withTemporaryDirectory { dir in
        let engine = try makeTestEngine(
          [
            AssetDefinition(id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json)
          ],
          cache: dir.cache,
          manifest: URL(string: "\(origin.baseURL)/manifest.json"))
        let events = await engine.events()
        await engine.start()
        _ = await engine.refresh("a")
        let event = await firstEvent(in: events) {
          if case .log(let entry) = $0 { entry.message.hasPrefix("manifest m1") } else { false }
        }
        await engine.shutdown()
        guard case .log(let entry)? = event else {
          Issue.record("no log line for the manifest")
          return
        }
        #expect(entry.message == "manifest m1 with 1 asset")
      }
    }
  }
}
