import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The config's `"tls"` and `"proxy"` fields: files checked at load, problems named by line and
/// path, secrets never echoed.
@Suite(
  .enabled(if: ExternalTool.shouldRun("openssl"), "needs openssl (apt-get install -y openssl)"),
  .serialized)
struct TLSConfigurationTests {
  /// Parses `json` written to `dir/assets.json`; returns the config or the error's lines.
  func load(_ json: String, dir: TemporaryDirectory, env: [String: String] = [:]) throws -> Result<
    EngineConfiguration, ConfigurationError
  > {
    let file = try dir.file("assets.json", json)
    do {
      return .success(try ConfigurationLoader.load(path: file.path, environment: env))
    } catch {
      return .failure(error)
    }
  }

  func asset(_ fields: String) -> String {
    """
    {
      "appVersion": "1",
      "cacheDirectory": "cache",
      "assets": [
        { "id": "a", "remote": "https://cdn.example/a.json",
          \(fields) }
      ]
    }
    """
  }

  @Test func relativePathsResolveAgainstTheConfigFolderAndDefaultsAreInherited() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let json = """
      {
        "appVersion": "1",
        "cacheDirectory": "cache",
        "defaults": { "tls": { "caFile": "pki/ca.pem" }, "proxy": "http://proxy.corp:3128" },
        "assets": [
          { "id": "a", "remote": "https://cdn.example/a" },
          { "id": "b", "remote": "https://cdn.example/b", "proxy": "none",
            "tls": { "certFile": "pki/client.pem", "keyFile": "pki/client.key", "systemRoots": false } }
        ]
      }
      """
    let config = try load(json, dir: dir).get()
    let a = config.assets[0]
    let b = config.assets[1]
    #expect(a.tls == TLSSettings(caFile: pki.caFile))
    #expect(a.proxy == .server(ProxyServer(host: "proxy.corp", port: 3128)))
    #expect(
      b.tls
        == TLSSettings(
          caFile: pki.caFile, certFile: pki.clientCert, keyFile: pki.clientKey,
          systemRoots: false))
    #expect(b.proxy == .direct)
    // The manifest uses `defaults` (there is no separate manifest setting).
    #expect(config.assetDefaults.tls == TLSSettings(caFile: pki.caFile))
  }

  @Test func missingAndNonPEMFilesAreNamedWithLineAndPath() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    _ = try dir.file("notpem.pem", "hello")
    let result = try load(
      asset(#""tls": { "caFile": "nope.pem", "certFile": "notpem.pem", "keyFile": "notpem.pem" }"#),
      dir: dir)
    guard case .failure(let error) = result else {
      Issue.record("expected an error")
      return
    }
    let text = error.description
    #expect(
      text.contains(
        "assets.json:6: assets[0].tls.caFile: \(dir.url.appendingPathComponent("nope.pem").standardizedFileURL.path) does not exist"
      ))
    #expect(text.contains("assets[0].tls.certFile:"))
    #expect(text.contains("holds no PEM certificate"))
    #expect(text.contains("assets[0].tls.keyFile:"))
    #expect(text.contains("holds no PEM private key"))
  }

  @Test func aKeyThatDoesNotBelongToTheCertificateIsRefused() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let result = try load(
      asset(#""tls": { "certFile": "\#(pki.clientCert)", "keyFile": "\#(pki.strayKey)" }"#),
      dir: dir)
    guard case .failure(let error) = result else {
      Issue.record("expected an error")
      return
    }
    #expect(error.problems.count == 1)
    #expect(error.problems.first?.path == "assets[0].tls.keyFile")
    #expect(error.problems.first?.message.contains("does not belong to the certificate") == true)
    // The matching key is accepted.
    let ok = try load(
      asset(#""tls": { "certFile": "\#(pki.clientCert)", "keyFile": "\#(pki.clientKey)" }"#),
      dir: dir)
    #expect((try? ok.get()) != nil)
  }

  @Test func incompleteSettingsAreRefused() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    func problems(_ fields: String) throws -> [String] {
      guard case .failure(let error) = try load(asset(fields), dir: dir) else { return [] }
      return error.problems.map(\.description)
    }
    #expect(
      try problems(#""tls": { "certFile": "\#(pki.clientCert)" }"#)
        == ["assets[0].tls.keyFile: is missing (certFile needs its private key)"])
    #expect(
      try problems(#""tls": { "keyFile": "\#(pki.clientKey)" }"#)
        == ["assets[0].tls.certFile: is missing (keyFile needs the certificate it belongs to)"])
    #expect(
      try problems(#""tls": { "systemRoots": false }"#)
        == [
          "assets[0].tls.systemRoots: false needs a caFile (otherwise no server could be trusted)"
        ])
    #expect(
      try problems(#""tls": { "cafile": "x" }"#).first?.contains("did you mean \"caFile\"") == true)
    #expect(try problems(#""tls": "ca.pem""#).first?.contains("must be an object") == true)
  }

  @Test func anEncryptedKeyIsRefusedWithAHint() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    _ = try dir.file(
      "enc.key",
      "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n")
    let pki = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    guard
      case .failure(let error) = try load(
        asset(#""tls": { "certFile": "\#(pki.clientCert)", "keyFile": "enc.key" }"#), dir: dir)
    else {
      Issue.record("expected an error")
      return
    }
    #expect(error.description.contains("is encrypted"))
  }

  @Test func proxySettingsAreCheckedAndNeverEchoed() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    func problems(_ fields: String, env: [String: String] = [:]) throws -> [String] {
      guard case .failure(let error) = try load(asset(fields), dir: dir, env: env) else {
        return []
      }
      return error.lines
    }
    let bad = try problems(#""proxy": "https://u:hunter2@p:3128""#)
    #expect(bad.count == 1)
    #expect(bad.first?.contains("assets[0].proxy: uses https://") == true)
    #expect(bad.first?.contains("hunter2") == false)
    #expect(
      try problems(#""proxy": "http://u:${PROXY_PASS}@p:3128""#).first?.contains(
        "PROXY_PASS is not set") == true)
    let ok = try load(
      asset(#""proxy": "http://u:${PROXY_PASS}@p:3128""#), dir: dir, env: ["PROXY_PASS": "s3cret"])
    let config = try ok.get()
    #expect(
      config.assets[0].proxy
        == .server(ProxyServer(host: "p", port: 3128, username: "u", password: "s3cret")))
    #expect(!"\(config.assets[0].proxy)".contains("s3cret"))
  }

  @Test func anInheritedCAFileProblemIsReportedOnceWhereItIsWritten() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    _ = try TestCertificates(in: dir.url.appendingPathComponent("pki"))
    let json = """
      {
        "appVersion": "1",
        "defaults": { "tls": { "caFile": "nope.pem" } },
        "assets": [
          { "id": "a", "remote": "https://cdn.example/a",
            "tls": { "certFile": "pki/client.pem", "keyFile": "pki/client.key" } }
        ]
      }
      """
    guard case .failure(let error) = try load(json, dir: dir) else {
      Issue.record("expected an error")
      return
    }
    #expect(error.problems.map(\.path) == ["defaults.tls.caFile"])
  }
}

/// "Did you mean" hints do not depend on set order now that `tls` sits one edit from `ttl`.
@Suite struct FieldSuggestionTests {
  @Test func tiesPreferTheFieldThatKeepsBothEnds() {
    for _ in 0..<20 {
      #expect(ConfigReader.nearest("tll", in: ConfigReader.assetKeys) == "ttl")
      #expect(ConfigReader.nearest("tlss", in: ConfigReader.assetKeys) == "tls")
      #expect(ConfigReader.nearest("proxi", in: ConfigReader.assetKeys) == "proxy")
      #expect(ConfigReader.nearest("wholly-unrelated", in: ConfigReader.assetKeys) == nil)
    }
  }
}
