import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Each kind of transport failure, produced for real on 127.0.0.1 (or a name under `.invalid`,
/// which never resolves), reaches the app as its own kind and one plain sentence of what
/// happened: no NIO or client type names, no errno numbers, balanced parentheses.
@Suite struct TransportFailureTests {
  /// Refreshes an asset at `url` in a fresh engine; returns the failure it recorded.
  func failure(of url: String, timeout: TimeInterval = 10) async throws -> FetchError {
    let asset = AssetDefinition(
      id: "a", remote: URL(string: url), format: .binary, timeout: timeout, allowInsecure: true)
    return try await withEngine([asset]) { engine, _ in
      let outcome = await engine.refresh("a")
      let failure = try #require(outcome.failure, "expected a failure, got \(outcome)")
      let recorded = try #require(await engine.status("a")?.lastError)
      #expect(recorded.kind == failure.kind)
      #expect(recorded.message.hasPrefix(failure.message))
      return failure
    }
  }

  /// The marks of a dumped error type rather than a sentence.
  func expectPlain(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    for mark in ["IOError", "NIO", "errno", "Error(", "error set", "HTTPClientError"] {
      #expect(!message.contains(mark), "\(message)", sourceLocation: sourceLocation)
    }
    let opened = message.filter { $0 == "(" }.count
    let closed = message.filter { $0 == ")" }.count
    #expect(opened == closed, "unbalanced parentheses: \(message)", sourceLocation: sourceLocation)
  }

  @Test func aPortNobodyListensOnIsRefused() async throws {
    let port = freeLoopbackPort()
    let failure = try await failure(of: "http://127.0.0.1:\(port)/a.bin")
    #expect(failure.kind == .refused, "\(failure)")
    #expect(
      failure.message == "connection refused by 127.0.0.1:\(port) — nothing is listening there")
    #expect(failure.isRetryable)
    expectPlain(failure.message)
  }

  @Test func aServerThatResetsTheConnectionIsReset() async throws {
    try await withRawTCPListener(.resetAfterRequest) { listener in
      let failure = try await failure(of: "http://127.0.0.1:\(listener.port)/a.bin")
      #expect(failure.kind == .reset, "\(failure)")
      #expect(
        failure.message
          == "127.0.0.1:\(listener.port) reset the connection while waiting for the response")
      #expect(failure.isRetryable)
      expectPlain(failure.message)
    }
  }

  /// A keep-alive connection the server closed as the request went out (lighttpd's idle close,
  /// met in CI): the `GET` is sent again on a new connection, and the asset arrives.
  @Test func aConnectionClosedBeforeAnyResponseIsSentAgain() async throws {
    try await withRawTCPListener(.closeBeforeAnswering(closing: 1, body: "ok")) { listener in
      let asset = AssetDefinition(
        id: "a", remote: URL(string: "http://127.0.0.1:\(listener.port)/a.bin"), format: .binary,
        allowInsecure: true)
      try await withEngine([asset]) { engine, _ throws in
        let outcome = await engine.refresh("a")
        #expect(outcome.isUpdated, "\(outcome)")
        #expect(try await engine.data("a") == Data("ok".utf8))
      }
      #expect(listener.connections == 2)
    }
  }

  /// A server that closes every connection without a word costs three requests, then fails.
  @Test func aServerThatAlwaysClosesFailsAfterThreeRequests() async throws {
    try await withRawTCPListener(.closeBeforeAnswering(closing: .max, body: "")) { listener in
      let failure = try await failure(of: "http://127.0.0.1:\(listener.port)/a.bin")
      #expect(failure.kind == .truncated, "\(failure)")
      #expect(
        failure.message
          == "127.0.0.1:\(listener.port) closed the connection while waiting for the response")
      #expect(listener.connections == UnsentRequest.attempts)
    }
  }

  @Test func aServerThatNeverAnswersTimesOut() async throws {
    try await withRawTCPListener(.staySilent) { listener in
      let failure = try await failure(
        of: "http://127.0.0.1:\(listener.port)/a.bin", timeout: 0.5)
      #expect(failure.kind == .timedOut, "\(failure)")
      #expect(
        failure.message
          == "no response from 127.0.0.1:\(listener.port) within 500ms (the asset's timeout) while waiting for the response"
      )
      #expect(failure.isRetryable)
      expectPlain(failure.message)
    }
  }

  @Test func aNameThatNeverResolvesIsDNS() async throws {
    // RFC 6761: names under .invalid never resolve, with or without a network.
    let failure = try await failure(of: "http://assetwatch-test.invalid:8080/a.bin")
    #expect(failure.kind == .dns, "\(failure)")
    #expect(
      failure.message
        == "the host name assetwatch-test.invalid could not be resolved (DNS lookup failed)")
    expectPlain(failure.message)
  }
}
