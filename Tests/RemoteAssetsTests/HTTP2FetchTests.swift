import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The engine against nginx serving TLS with `http2` on its `listen` line, as real origins serve
/// it: the client negotiates h2 over ALPN with the configured CA, multiplexes every transfer of an
/// origin on one connection, and a server that resets a stream or sends GOAWAY mid-sync costs only
/// the requests it did not answer. nginx's own access log (`$server_protocol`, `$connection`) is
/// the witness.
@Suite(
  .enabled(
    if: ExternalTool.shouldRun("nginx") && ExternalTool.shouldRun("openssl"),
    "needs nginx and openssl (apt-get install -y nginx-light openssl)"),
  .serialized)
struct HTTP2FetchTests {
  /// nginx over TLS with HTTP/2, `count` JSON files under `many/`, and one asset per file that
  /// trusts the test CA.
  struct Origin {
    let nginx: NginxServer
    let assets: [AssetDefinition]

    init(pki: TestCertificates, count: Int, prefix: String = "a", serverDirectives: String = "")
      throws
    {
      nginx = try NginxServer(
        tls: .init(certificate: pki.serverCert, key: pki.serverKey, http2: true),
        serverDirectives: serverDirectives)
      var made: [AssetDefinition] = []
      for i in 0..<count {
        try nginx.put("many/a\(i).json", Data(#"{"asset": \#(i)}"#.utf8))
        var asset = AssetDefinition(
          id: "\(prefix)\(i)", remote: URL(string: "\(nginx.baseURL)/many/a\(i).json"),
          format: .json)
        asset.tls = TLSSettings(caFile: pki.caFile)
        made.append(asset)
      }
      assets = made
    }

    /// The access-log lines of the assets' requests.
    var lines: [String] { nginx.requestLines(forPathsStartingWith: "/many/") }

    /// The lines once there are at least `count` (nginx logs a request after its answer went
    /// out), or what there is after 10 s.
    func lines(atLeast count: Int) async -> [String] {
      let deadline = ContinuousClock.now + .seconds(10)
      var found = lines
      while found.count < count, ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(10))
        found = lines
      }
      return found
    }

    /// How many of `lines` answered with `status`.
    static func count(_ lines: [String], status: Int) -> Int {
      lines.filter { $0.contains("\" \(status) ") }.count
    }
  }

  @Test func everyRequestGoesOverHTTP2OnOneConnectionPerOrigin() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let first = try Origin(pki: pki, count: 40, prefix: "a")
    defer { first.nginx.stop() }
    let second = try Origin(pki: pki, count: 40, prefix: "b")
    defer { second.nginx.stop() }

    try await withEngine(
      first.assets + second.assets, cache: dir.cache,
      configure: { $0.maxConcurrentTransfers = 8 }
    ) { engine in
      let sync = await engine.refreshAll()
      #expect(sync.allSatisfy { $0.outcome.isUpdated }, "\(sync.filter { !$0.outcome.isUpdated })")
      let again = await engine.refreshAll()
      #expect(again.allSatisfy { $0.outcome == .notModified })
    }
    for origin in [first, second] {
      let lines = await origin.lines(atLeast: 80)
      #expect(lines.count == 80, "40 downloads and 40 revalidations: \(lines.count)")
      #expect(lines.allSatisfy { $0.contains("proto=HTTP/2.0") }, "\(lines.prefix(3))")
      let connections = origin.nginx.connections(forPathsStartingWith: "/many/")
      #expect(connections.count == 1, "\(connections.count) connections: \(connections)")
    }
  }

  /// `return 444` over HTTP/2 makes nginx reset that stream (RST_STREAM); the connection and
  /// every other transfer on it go on.
  @Test func aResetStreamFailsOnlyItsAssetAndKeepsTheConnection() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let origin = try Origin(
      pki: pki, count: 40,
      serverDirectives: #"location ~ ^/many/a(7|23)\.json$ { return 444; }"#)
    defer { origin.nginx.stop() }

    try await withEngine(
      origin.assets, cache: dir.cache, configure: { $0.maxConcurrentTransfers = 8 }
    ) { engine in
      let sync = await engine.refreshAll()
      let failed = sync.filter { !$0.outcome.isUpdated }
      #expect(Set(failed.map(\.id)) == ["a7", "a23"], "\(failed)")
      for (_, outcome) in failed {
        let failure = try #require(outcome.failure)
        #expect(failure.kind == .reset, "\(failure.kind): \(failure.message)")
        #expect(failure.message.contains("reset the HTTP/2 stream (PROTOCOL_ERROR)"), "\(failure)")
        #expect(failure.isRetryable, "the scheduler tries it again later")
      }
      for i in [0, 8, 22, 24, 39] {
        #expect(try await engine.data("a\(i)") == Data(#"{"asset": \#(i)}"#.utf8))
      }
    }
    let lines = await origin.lines(atLeast: 40)
    #expect(lines.count == 40, "each asset asked once: \(lines.count)")
    #expect(lines.allSatisfy { $0.contains("proto=HTTP/2.0") }, "\(lines.prefix(3))")
    let connections = origin.nginx.connections(forPathsStartingWith: "/many/")
    #expect(connections.count == 1, "a reset stream closed the connection: \(connections)")
  }

  /// nginx ends an HTTP/2 connection with GOAWAY after `keepalive_requests` streams (1,000 by
  /// default); the streams the client had opened past the last one it named were never
  /// processed. Those requests are sent again on a new connection (``UnsentRequest``), so no asset
  /// fails, and nothing is asked twice: nginx's log holds each body once and each revalidation
  /// once.
  @Test func aGoAwayMidSyncCostsNoAssetAndNoSecondRequest() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let origin = try Origin(pki: pki, count: 60, serverDirectives: "keepalive_requests 10;")
    defer { origin.nginx.stop() }

    try await withEngine(
      origin.assets, cache: dir.cache, configure: { $0.maxConcurrentTransfers = 8 }
    ) { engine in
      let sync = await engine.refreshAll()
      #expect(sync.allSatisfy { $0.outcome.isUpdated }, "\(sync.filter { !$0.outcome.isUpdated })")
      let again = await engine.refreshAll()
      #expect(
        again.allSatisfy { $0.outcome == .notModified },
        "\(again.filter { $0.outcome != .notModified })")
      for i in [0, 9, 10, 11, 59] {
        let data = try await engine.data("a\(i)")
        #expect(data == Data(#"{"asset": \#(i)}"#.utf8))
      }
    }
    let lines = await origin.lines(atLeast: 120)
    #expect(Origin.count(lines, status: 200) == 60, "\(lines.count) lines")
    #expect(Origin.count(lines, status: 304) == 60, "\(lines.count) lines")
    #expect(lines.allSatisfy { $0.contains("proto=HTTP/2.0") }, "\(lines.prefix(3))")
    // Each connection carried at most the 10 requests nginx allows, then went away: the
    // GOAWAYs happened.
    #expect(!lines.contains { $0.contains("nth=11 ") })
    let connections = origin.nginx.connections(forPathsStartingWith: "/many/")
    #expect(connections.count >= 12, "\(connections.count) connections")
  }
}
