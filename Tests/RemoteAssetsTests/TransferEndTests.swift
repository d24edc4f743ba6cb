import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Synchronization
import Testing

@testable import RemoteAssets

/// The fetcher tells the sink when the whole response is in (`DownloadSink.transferEnded()`),
/// and the engine gives the transfer's slot to the next refresh from there: once for a 304, a
/// body, or the last hop of redirects; never for a response that fails.
@Suite struct TransferEndTests {
  /// How often a sink was told the transfer ended.
  private final class Ends: Sendable {
    let count = Mutex(0)
  }

  /// A sink that counts how often it was told the transfer ended.
  private static func countingSink(in dir: URL) throws -> (DownloadSink, Ends) {
    let ends = Ends()
    let store = try CacheStore(root: dir.appendingPathComponent("sink-cache"))
    let sink = DownloadSink(
      partial: try store.createPartial(for: "test"), maxBytes: 1 << 20, expectedSize: nil,
      onProgress: { _ in }, onTransferEnd: { ends.count.withLock { $0 += 1 } })
    return (sink, ends)
  }

  @Test func aBodyA304AndTheLastHopOfRedirectsEndTheTransferOnceAnErrorNever() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await origin.setResource(
          "/a.json", body: Data("{\"v\":1}".utf8), contentType: "application/json")
        await origin.setHandler("/moved") { _ in
          OriginResponse(status: 302, headers: [OriginHeader("Location", "/a.json")])
        }
        await origin.setHandler("/broken") { _ in
          OriginResponse(status: 500, body: .data(Data("down".utf8)))
        }
        let fetcher = HTTPFetcher()
        func fetch(_ path: String, etag: String? = nil) async throws -> (FetchResponse?, Int) {
          var request = FetchRequest(
            url: try #require(URL(string: "\(origin.baseURL)\(path)")), allowInsecure: true)
          request.etag = etag
          let (sink, ends) = try Self.countingSink(in: dir.url)
          defer { sink.discard() }
          let response = try? await fetcher.fetch(request, into: sink)
          return (response, ends.count.withLock { $0 })
        }

        let (body, bodyEnds) = try await fetch("/a.json")
        guard case .downloaded(let metadata) = body else {
          Issue.record("no body: \(String(describing: body))")
          return
        }
        #expect(bodyEnds == 1)
        let (unchanged, unchangedEnds) = try await fetch("/a.json", etag: metadata.etag)
        guard case .notModified = unchanged else {
          Issue.record("no 304: \(String(describing: unchanged))")
          return
        }
        #expect(unchangedEnds == 1)
        let (redirected, redirectedEnds) = try await fetch("/moved")
        guard case .downloaded = redirected else {
          Issue.record("the redirect was not followed: \(String(describing: redirected))")
          return
        }
        #expect(redirectedEnds == 1, "the redirect's own response does not end the transfer")
        let (failed, failedEnds) = try await fetch("/broken")
        #expect(failed == nil)
        #expect(failedEnds == 0, "the engine gives a failed transfer's slot back itself")
        try await fetcher.shutdown()
      }
    }
  }

  /// Through the engine, with one transfer slot: every refresh (bodies, then 304s) gets the
  /// slot, and each gives it back once, whether from the response's end or from the engine.
  @Test func oneSlotServesEveryRefreshAndIsGivenBackOnce() async throws {
    try await withOrigin { origin in
      var assets: [AssetDefinition] = []
      for i in 0..<6 {
        await origin.setResource(
          "/a\(i).json", body: Data("{\"v\":\(i)}".utf8), contentType: "application/json")
        assets.append(
          AssetDefinition(
            id: "a\(i)", remote: URL(string: "\(origin.baseURL)/a\(i).json"), format: .json))
      }
      await origin.setHandler("/broken.json") { _ in OriginResponse(status: 500) }
      assets.append(
        AssetDefinition(
          id: "broken", remote: URL(string: "\(origin.baseURL)/broken.json"), format: .json))
      try await withEngine(assets, configure: { $0.maxConcurrentTransfers = 1 }) { engine, _ in
        for round in ["updated", "notModified"] {
          let outcomes = await engine.refreshAll()
          #expect(outcomes.count == 7)
          for (id, outcome) in outcomes where id != "broken" {
            #expect(outcome.word == round, "\(id): \(outcome)")
          }
          let counts = engine.limiter.counts()
          #expect(counts.regular == 0 && counts.essential == 0 && counts.waiting == 0)
        }
      }
    }
  }
}
