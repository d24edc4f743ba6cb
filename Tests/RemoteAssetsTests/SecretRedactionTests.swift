import AssetWatchTestKit
import AsyncHTTPClient
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Header values (tokens) never reach an error, a log line, a status or an entry file, whatever
/// the HTTP client puts in its own messages.
@Suite struct SecretRedactionTests {
  static let secret = "tok-4f9c2e7a1b"

  /// Any error whose description quotes a header value.
  struct Echoing: Error, CustomStringConvertible {
    var text: String
    var description: String { "refused header value \(text)" }
  }

  @Test func aClientErrorQuotingTheValueIsRedacted() {
    let redactor = SecretRedactor(values: ["Bearer \(Self.secret)"])
    let error = HTTPFetcher.translate(
      Echoing(text: "'Bearer \(Self.secret)\u{01}'"), phase: "connecting to x", redactor: redactor)
    #expect(!error.message.contains(Self.secret))
    #expect(error.message.contains(SecretRedactor.placeholder))
  }

  @Test func invalidHeaderFieldValuesNeverQuotesTheValue() {
    let value = "Bearer \(Self.secret)\u{01}"
    // Without a redactor: the first line of defence alone keeps the value out.
    let bare = HTTPFetcher.translate(
      HTTPClientError.invalidHeaderFieldValues([value]), phase: "connecting to x")
    #expect(!bare.message.contains(Self.secret))
    #expect(bare.message.contains("Invalid header field values"))
  }

  @Test func sanitizedAndCutFormsAreRedactedToo() {
    let redactor = SecretRedactor(values: ["abc\u{01}defgh"])
    // The control byte was already removed by the time the message was built.
    #expect(redactor.redact("value abcdefgh refused") == "value <redacted> refused")
    // A snippet cut in the middle of the value.
    #expect(redactor.redact("echo: abcd…") == "echo: <redacted>…")
    #expect(redactor.redact("echo: abcde") == "echo: <redacted>")
    // A control byte in the middle: neither half leaks, however the byte was shown.
    let split = SecretRedactor(values: ["left-half\u{01}right-half"])
    #expect(split.redact(#"["left-half\u{01}right-half"]"#) == #"["<redacted>"]"#)
    #expect(split.redact("left-halfright-half") == "<redacted>")
    #expect(!split.redact("left-half and right-half").contains("half"))
    // Short values are not searched for: "1" would eat every digit.
    #expect(SecretRedactor(values: ["1"]).redact("HTTP 401") == "HTTP 401")
  }

  /// End to end: a header value the HTTP client refuses (a control byte, which `check` would
  /// refuse too, but an app can build any definition) fails the refresh without the value
  /// appearing in the outcome, the status, the events, or `entries/<id>.json`.
  @Test func aRefusedHeaderValueIsNowhere() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    await origin.setResource("/a.json", body: Data("{}".utf8), contentType: "application/json")
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let asset = AssetDefinition(
      id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json,
      headers: [HeaderField(name: "Authorization", value: "Bearer \(Self.secret)\u{01}")])
    let engine = try makeTestEngine([asset], cache: dir.url)
    await engine.start()
    let events = await engine.events()
    let outcome = await engine.refresh("a")
    let failure = try #require(outcome.failure, "\(outcome)")
    #expect(!failure.message.contains(Self.secret))
    let status = try #require(await engine.status("a"))
    #expect(status.lastError != nil)
    #expect(!"\(status)".contains(Self.secret))
    let log = await firstEvent(in: events) { event in
      if case .log(let entry) = event { return entry.level == .error }
      return false
    }
    #expect(log != nil)
    #expect(!"\(String(describing: log))".contains(Self.secret))
    await engine.shutdown()
    let entry = try String(
      contentsOf: dir.url.appendingPathComponent("entries/a.json"), encoding: .utf8)
    #expect(entry.contains("lastError"))
    #expect(!entry.contains(Self.secret))
  }

  /// A server that echoes the token in its error body is redacted as well.
  @Test func anErrorBodyEchoingTheTokenIsRedacted() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    await origin.setHandler("/a.json") { request in
      .text("invalid credentials: \(request.header("Authorization") ?? "")", status: 401)
    }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let asset = AssetDefinition(
      id: "a", remote: URL(string: "\(origin.baseURL)/a.json"),
      headers: [HeaderField(name: "Authorization", value: "Bearer \(Self.secret)")])
    let engine = try makeTestEngine([asset], cache: dir.url)
    await engine.start()
    let failure = try #require(await engine.refresh("a").failure)
    await engine.shutdown()
    #expect(failure.status == 401)
    #expect(failure.message.contains("invalid credentials: <redacted>"), "\(failure.message)")
    #expect(!failure.message.contains(Self.secret))
  }
}
