import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The engine through Debian's tinyproxy: the proxy variables are injected (never set on this
/// process), and tinyproxy's own log shows which requests went through it.
@Suite(
  .enabled(
    if: ExternalTool.shouldRun("tinyproxy") && ExternalTool.shouldRun("nginx")
      && ExternalTool.shouldRun("openssl"),
    "needs tinyproxy, nginx and openssl (apt-get install -y tinyproxy nginx-light openssl)"),
  .serialized)
struct ProxyFetchTests {
  func fetch(
    _ asset: AssetDefinition, environment: [String: String], dir: TemporaryDirectory
  ) async throws -> RefreshOutcome {
    let fetcher = HTTPFetcher(environment: environment)
    let engine = try makeTestEngine(
      [asset], cache: dir.url.appendingPathComponent("cache-\(UUID().uuidString)"),
      fetchers: [fetcher])
    await engine.start()
    let outcome = await engine.refresh(asset.id)
    await engine.shutdown()
    try await fetcher.shutdown()
    return outcome
  }

  @Test func httpsGoesThroughHTTPS_PROXYUnlessNO_PROXYCoversTheHost() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let nginx = try TLSNginxServer(certificate: pki.serverCert, key: pki.serverKey)
    defer { nginx.stop() }
    let proxy = try TinyproxyServer()
    defer { proxy.stop() }
    try nginx.put("flags.json", Data(#"{"via": "proxy"}"#.utf8))
    var asset = AssetDefinition(
      id: "flags", remote: URL(string: "\(nginx.baseURL)/flags.json"), format: .json)
    asset.tls = TLSSettings(caFile: pki.caFile)
    let tunnel = "CONNECT 127.0.0.1:\(nginx.port) "

    let proxied = try await fetch(asset, environment: ["HTTPS_PROXY": proxy.url], dir: dir)
    #expect(proxied.isUpdated, "\(proxied)")
    #expect(proxy.requests.filter { $0.hasPrefix(tunnel) }.count == 1, "\(proxy.requests)")

    let direct = try await fetch(
      asset, environment: ["HTTPS_PROXY": proxy.url, "NO_PROXY": "localhost,127.0.0.1"], dir: dir)
    #expect(direct.isUpdated, "\(direct)")
    #expect(proxy.requests.filter { $0.hasPrefix(tunnel) }.count == 1, "NO_PROXY: not proxied")

    // The config's "proxy" wins over the environment; "none" goes direct.
    asset.proxy = .direct
    #expect(try await fetch(asset, environment: ["HTTPS_PROXY": proxy.url], dir: dir).isUpdated)
    asset.proxy = .server(ProxyServer(host: "127.0.0.1", port: proxy.port))
    #expect(try await fetch(asset, environment: [:], dir: dir).isUpdated)
    #expect(proxy.requests.filter { $0.hasPrefix(tunnel) }.count == 2)
    #expect(nginx.hits("/flags.json").count == 4)
  }

  @Test func plainHTTPGoesThroughHTTP_PROXY() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let nginx = try NginxServer()
    defer { nginx.stop() }
    let proxy = try TinyproxyServer()
    defer { proxy.stop() }
    try nginx.put("flags.json", Data("{}".utf8))
    let url = "\(nginx.baseURL)/flags.json"
    let asset = AssetDefinition(id: "flags", remote: URL(string: url), format: .json)

    #expect(try await fetch(asset, environment: ["HTTP_PROXY": proxy.url], dir: dir).isUpdated)
    // async-http-client tunnels plain http through the proxy with CONNECT as well.
    #expect(proxy.requests == ["CONNECT 127.0.0.1:\(nginx.port) HTTP/1.1"], "\(proxy.requests)")
    #expect(try await fetch(asset, environment: ["HTTPS_PROXY": proxy.url], dir: dir).isUpdated)
    #expect(proxy.requests.count == 1, "HTTPS_PROXY is not for http://")
  }

  @Test func aProxyThatRefusesTheConnectionIsNamedWithoutItsCredentials() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let closedPort = try NginxServer.freePort()
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "https://127.0.0.1:9/flags.json"), format: .json)
    let failure = try #require(
      try await fetch(
        asset, environment: ["HTTPS_PROXY": "http://user:hunter2@127.0.0.1:\(closedPort)"],
        dir: dir
      ).failure)
    #expect(
      failure.message == "the proxy http://***@127.0.0.1:\(closedPort) refused the connection")
  }

  @Test func aProxyThatWantsCredentialsSaysSoAndTheirsAreNeverShown() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let nginx = try NginxServer()
    defer { nginx.stop() }
    let proxy = try TinyproxyServer(basicAuth: ("alice", "hunter2"))
    defer { proxy.stop() }
    try nginx.put("flags.json", Data("{}".utf8))
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "\(nginx.baseURL)/flags.json"), format: .json)
    let hostPort = "127.0.0.1:\(proxy.port)"

    let none = try #require(
      try await fetch(asset, environment: ["http_proxy": "http://\(hostPort)"], dir: dir).failure)
    #expect(none.message.hasPrefix("the proxy http://\(hostPort) requires credentials (HTTP 407)"))
    let wrong = try #require(
      try await fetch(
        asset, environment: ["http_proxy": "http://alice:wrong@\(hostPort)"], dir: dir
      ).failure)
    // tinyproxy answers wrong credentials with another status than 407.
    #expect(wrong.message.hasPrefix("the proxy http://***@\(hostPort) refused"), "\(wrong)")
    #expect(wrong.message.contains("credentials"))
    #expect(!wrong.message.contains("wrong") && !wrong.message.contains("alice"))
    let right = try await fetch(
      asset, environment: ["http_proxy": "http://alice:hunter2@\(hostPort)"], dir: dir)
    #expect(right.isUpdated, "\(right)")
  }
}
