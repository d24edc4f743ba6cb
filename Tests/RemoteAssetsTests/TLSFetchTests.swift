import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The engine against nginx over TLS, with a CA, server and client certificates made by the test:
/// trusted only with `caFile`, the host name checked, a client certificate presented when the
/// server asks, and every refusal said in one plain sentence.
@Suite(
  .enabled(
    if: ExternalTool.shouldRun("nginx") && ExternalTool.shouldRun("openssl"),
    "needs nginx and openssl (apt-get install -y nginx-light openssl)"),
  .serialized)
struct TLSFetchTests {
  /// Fetches `url` once with `tls` through a fresh engine (no proxy variables).
  func fetch(_ url: String, tls: TLSSettings?, dir: TemporaryDirectory) async throws
    -> RefreshOutcome
  {
    var asset = AssetDefinition(id: "flags", remote: URL(string: url), format: .json)
    asset.tls = tls
    let fetcher = HTTPFetcher(environment: [:])
    let engine = try makeTestEngine(
      [asset], cache: dir.url.appendingPathComponent("cache-\(UUID().uuidString)"),
      fetchers: [fetcher])
    await engine.start()
    let outcome = await engine.refresh("flags")
    await engine.shutdown()
    try await fetcher.shutdown()
    return outcome
  }

  @Test func trustedWithCAFileAndRefusedWithoutIt() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let nginx = try TLSNginxServer(certificate: pki.serverCert, key: pki.serverKey)
    defer { nginx.stop() }
    try nginx.put("flags.json", Data(#"{"tls": true}"#.utf8))
    let url = "\(nginx.baseURL)/flags.json"

    let trusted = try await fetch(url, tls: TLSSettings(caFile: pki.caFile), dir: dir)
    #expect(trusted.isUpdated, "\(trusted)")
    let onlyThatCA = try await fetch(
      url, tls: TLSSettings(caFile: pki.caFile, systemRoots: false), dir: dir)
    #expect(onlyThatCA.isUpdated, "\(onlyThatCA)")

    let refused = try #require(try await fetch(url, tls: nil, dir: dir).failure)
    #expect(refused.kind == .tls)
    #expect(
      refused.message
        == "the server's certificate is not trusted (unknown CA); set tls.caFile to the CA that signed it"
    )
    #expect(
      nginx.hits("/flags.json").count == 2, "nothing is requested over an untrusted connection")
  }

  @Test func aCertificateForAnotherNameSaysWhichName() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let nginx = try TLSNginxServer(certificate: pki.otherNameCert, key: pki.otherNameKey)
    defer { nginx.stop() }
    try nginx.put("flags.json", Data("{}".utf8))
    let failure = try #require(
      try await fetch(
        "\(nginx.baseURL)/flags.json", tls: TLSSettings(caFile: pki.caFile), dir: dir
      ).failure)
    #expect(failure.kind == .tls)
    #expect(failure.message == "the certificate is for other.example, not 127.0.0.1")
    #expect(nginx.hits("/flags.json").isEmpty)
  }

  @Test func aClientCertificateIsPresentedWhenConfiguredAndItsAbsenceIsExplained() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let nginx = try TLSNginxServer(
      certificate: pki.serverCert, key: pki.serverKey, clientCA: pki.caFile)
    defer { nginx.stop() }
    try nginx.put("flags.json", Data(#"{"client": true}"#.utf8))
    let url = "\(nginx.baseURL)/flags.json"

    let without = try #require(
      try await fetch(url, tls: TLSSettings(caFile: pki.caFile), dir: dir).failure)
    #expect(without.kind == .tls)
    #expect(
      without.message
        == "the server refused the client certificate (or required one): set tls.certFile and tls.keyFile"
    )

    // A certificate the server's CA did not sign (the server's own, self-made here as a client
    // certificate would be by mistake) is refused too, and the sentence says so.
    let otherCA = try TestCertificates(in: dir.url.appendingPathComponent("other-pki"))
    let wrong = try #require(
      try await fetch(
        url,
        tls: TLSSettings(
          caFile: pki.caFile, certFile: otherCA.clientCert, keyFile: otherCA.clientKey),
        dir: dir
      ).failure)
    #expect(wrong.kind == .tls)
    #expect(wrong.message.hasPrefix("the server refused the client certificate in tls.certFile"))

    let with = try await fetch(
      url, tls: TLSSettings(caFile: pki.caFile, certFile: pki.clientCert, keyFile: pki.clientKey),
      dir: dir)
    #expect(with.isUpdated, "\(with)")
  }

  @Test func assetsWithTheSameSettingsShareOneClient() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let nginx = try TLSNginxServer(certificate: pki.serverCert, key: pki.serverKey)
    defer { nginx.stop() }
    for name in ["a", "b", "c"] { try nginx.put("\(name).json", Data("{}".utf8)) }
    let trust = TLSSettings(caFile: pki.caFile)
    var assets: [AssetDefinition] = []
    for name in ["a", "b", "c"] {
      var asset = AssetDefinition(
        id: name, remote: URL(string: "\(nginx.baseURL)/\(name).json"), format: .json)
      asset.tls = name == "c" ? TLSSettings(caFile: pki.caFile, systemRoots: false) : trust
      assets.append(asset)
    }
    let fetcher = HTTPFetcher(environment: [:])
    let engine = try makeTestEngine(
      assets, cache: dir.url.appendingPathComponent("cache"), fetchers: [fetcher])
    await engine.start()
    #expect(fetcher.clients.count == 0, "clients are made when first needed")
    for name in ["a", "b", "c"] { #expect(await engine.refresh(name).isUpdated) }
    #expect(fetcher.clients.count == 2)
    // Both on the pool's one event loop: no request's timer wakes a loop without a connection.
    #expect(fetcher.clients.loopsInUse == [ObjectIdentifier(HTTPClientPool.eventLoop)])
    await engine.shutdown()
    try await fetcher.shutdown()
    #expect(fetcher.clients.count == 0)
  }

  @Test func theManifestIsFetchedWithTheDefaultsTLSSettings() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let nginx = try TLSNginxServer(certificate: pki.serverCert, key: pki.serverKey)
    defer { nginx.stop() }
    try nginx.put("manifest.json", Data(#"{"version": "rollout-7", "assets": []}"#.utf8))
    for trusted in [false, true] {
      var configuration = EngineConfiguration(
        appVersion: "1", cacheDirectory: dir.url.appendingPathComponent("cache-\(trusted)"),
        manifest: URL(string: "\(nginx.baseURL)/manifest.json"), assets: [])
      if trusted { configuration.assetDefaults.tls = TLSSettings(caFile: pki.caFile) }
      let fetcher = HTTPFetcher(environment: [:])
      let engine = try AssetEngine(configuration: configuration, fetchers: [fetcher])
      await engine.start()
      await engine.refreshManifest()
      let version = await engine.info().manifestVersion
      #expect(version == (trusted ? "rollout-7" : nil))
      await engine.shutdown()
      try await fetcher.shutdown()
    }
    #expect(nginx.hits("/manifest.json").count == 1)
  }
}
