import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// A server that echoes only the credential part of a header value (`invalid token <token>` for
/// `Authorization: Bearer <token>`) leaks it nowhere: not in the outcome, the status, the entry
/// file, nor a range request's error.
@Suite struct PartialSecretEchoTests {
  static let token = "tok-7d41b9e05c2a"
  static let header = HeaderField(name: "Authorization", value: "Bearer \(token)")

  @Test func eachLongWordOfAValueIsRedactedOnItsOwn() {
    let redactor = SecretRedactor(values: ["Bearer \(Self.token)"])
    #expect(redactor.redact("invalid token \(Self.token)") == "invalid token <redacted>")
    #expect(redactor.redact("was: Bearer \(Self.token).") == "was: <redacted>.")
    // The scheme is shorter than a credential: ordinary text keeps it.
    #expect(redactor.redact("Bearer tokens only") == "Bearer tokens only")
    // A value of several credentials: each one alone.
    let pair = SecretRedactor(values: ["key=abcdefgh12 secret=zyxwvuts98"])
    #expect(pair.redact("bad key=abcdefgh12") == "bad <redacted>")
    #expect(pair.redact("bad secret=zyxwvuts98!") == "bad <redacted>!")
  }

  @Test func anErrorBodyEchoingOnlyTheTokenIsRedactedEverywhere() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/a.json") { request in
        let token = request.header("Authorization")?.split(separator: " ").last ?? ""
        return .text("invalid token \(token)", status: 401)
      }
      try await withTemporaryDirectory { dir in
        let asset = AssetDefinition(
          id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json,
          headers: [Self.header])
        try await withEngine([asset], cache: dir.cache) { engine throws in
          let failure = try #require(await engine.refresh("a").failure)
          #expect(failure.status == 401)
          #expect(failure.message.contains("invalid token <redacted>"), "\(failure.message)")
          #expect(!failure.message.contains(Self.token))
          let status = try #require(await engine.status("a"))
          let lastError = try #require(status.lastError)
          #expect(lastError.message.contains("<redacted>"))
          #expect(!lastError.message.contains(Self.token))
          #expect(!"\(status)".contains(Self.token))
        }
        let entry = try String(
          contentsOf: dir.cache.appendingPathComponent("entries/a.json"), encoding: .utf8)
        #expect(entry.contains("lastError"))
        #expect(!entry.contains(Self.token))
      }
    }
  }

  /// A range request's errors are redacted like every other message: here the server echoes
  /// the token in a `Content-Range` the error quotes. (The reason phrase never gets this far:
  /// NIO's parser drops it.)
  @Test func aRangeErrorQuotingTheServerIsRedacted() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/a.bin") { request in
        let token = request.header("Authorization")?.split(separator: " ").last ?? ""
        return OriginResponse(
          status: 206, headers: [OriginHeader("Content-Range", "bytes 0-9/100 \(token)")],
          body: .text("0123456789"))
      }
      let fetcher = HTTPFetcher()
      let request = FetchRequest(
        url: URL(string: "\(origin.baseURL)/a.bin")!, headers: [Self.header], timeout: 5)
      let error = await #expect(throws: FetchError.self) {
        try await fetcher.fetchRange(request, range: 0..<10, total: 100)
      }
      try? await fetcher.shutdown()
      #expect(error?.status == 206, "\(String(describing: error))")
      #expect(error?.message.contains("<redacted>") == true, "\(String(describing: error))")
      #expect(error?.message.contains(Self.token) == false, "\(String(describing: error))")
    }
  }
}
