import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// No URL from anywhere crashes the process: generated hostile URLs through the config, through
/// a manifest and through redirects of a real origin on 127.0.0.1. Before `RemoteURL`, a port
/// above 65535 on an IP-literal host trapped inside the HTTP client and killed the process, so a
/// regression here ends the whole test run.
@Suite struct HostileURLTests {
  static let good = Data(#"{"good": true}"#.utf8)

  static func config(remote: String) -> Data {
    Data(
      """
      {
        "appVersion": "1",
        "assets": [
          { "id": "a", "remote": \(HostileURLs.jsonString(remote)) }
        ]
      }
      """.utf8)
  }

  @Test func aConfigPortAbove65535IsAProblemWithFileLineAndField() {
    for remote in ["http://127.0.0.1:70000/x", "http://[::1]:99999/x"] {
      do {
        _ = try ConfigurationLoader.parse(
          Self.config(remote: remote), path: "assets.json", environment: [:])
        Issue.record("\(remote) was accepted")
      } catch {
        let problem = error.problems.first
        #expect(problem?.path == "assets[0].remote")
        #expect(problem?.line == 4)
        #expect(problem?.message.contains("port") == true, "\(String(describing: problem))")
      }
    }
  }

  @Test func aConfigURLWithCredentialsIsAProblem() {
    #expect(throws: ConfigurationError.self) {
      try ConfigurationLoader.parse(
        Self.config(remote: "https://user:secret@cdn.example.com/a"), path: "assets.json",
        environment: [:])
    }
  }

  @Test func aProxyWithAHostileHostOrPortIsAProblem() {
    for text in ["http://[::1%25eth0]:8080", "http://127.0.0.1:70000", "http://a..b:8080"] {
      guard case .failure = ProxyServer.parse(text) else {
        Issue.record("\(text) was accepted as a proxy")
        continue
      }
    }
    guard case .success = ProxyServer.parse("http://[::1]:8080") else {
      Issue.record("a good proxy was refused")
      return
    }
  }

  @Test func generatedConfigURLsLoadUsableOrAreExplained() throws {
    var loaded = 0
    for remote in HostileURLs.generate(3000) {
      do {
        let configuration = try ConfigurationLoader.parse(
          Self.config(remote: remote), path: "assets.json", environment: [:])
        loaded += 1
        let url = try #require(configuration.assets.first?.remote, "\(remote.debugDescription)")
        if !url.isFileURL {
          #expect(
            (try? RemoteURL(url.absoluteString)) != nil,
            "\(remote.debugDescription) loaded as \(url.absoluteString)")
        }
      } catch let error as ConfigurationError {
        #expect(
          error.problems.contains { $0.path == "assets[0].remote" || $0.path.isEmpty },
          "\(remote.debugDescription): \(error.problems)")
      }
    }
    #expect(loaded > 50)
  }

  /// A redirect to a hostile `Location` is refused as `invalid_url`, and the good copy stays.
  @Test func aRedirectToAPortAbove65535IsRefusedKeepingTheLastGoodCopy() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a.json", body: Self.good, contentType: "application/json")
      let asset = AssetDefinition(
        id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json,
        refresh: .manual, timeout: 30)
      try await withEngine([asset]) { engine, _ throws in
        #expect(await engine.refresh("a").isUpdated)
        for location in ["http://127.0.0.1:70000/x", "http://[::1]:99999/x", "//127.0.0.1:65536/"] {
          await origin.setHandler("/a.json") { _ in
            OriginResponse(status: 302, headers: [OriginHeader("Location", location)])
          }
          let outcome = await engine.refresh("a")
          #expect(outcome.failure?.kind == .invalidURL, "\(location): \(outcome)")
          let data = try await engine.data("a")
          #expect(data == Self.good)
          #expect(await engine.status("a")?.lastError?.kind == .invalidURL)
        }
      }
    }
  }

  /// A manifest naming a hostile URL: the asset is refused as `invalid_url` without a request,
  /// and the good copy stays.
  @Test func aManifestURLWithAPortAbove65535IsRefusedKeepingTheLastGoodCopy() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a.json", body: Self.good, contentType: "application/json")
      await origin.setResource(
        "/manifest.json", body: Data(#"{"assets":[{"id":"a","url":"/a.json"}]}"#.utf8),
        contentType: "application/json")
      let asset = AssetDefinition(
        id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json,
        refresh: .manual, timeout: 30)
      let manifest = URL(string: "\(origin.baseURL)/manifest.json")!
      try await withEngine([asset], manifest: manifest) { engine, _ throws in
        #expect(await engine.refresh("a").isUpdated)
        await origin.setResource(
          "/manifest.json",
          body: Data(#"{"assets":[{"id":"a","url":"http://127.0.0.1:70000/a.json"}]}"#.utf8),
          contentType: "application/json")
        let before = await origin.requestCount(path: "/a.json")
        let outcome = await engine.refresh("a")
        #expect(outcome.failure?.kind == .invalidURL, "\(outcome)")
        #expect(await origin.requestCount(path: "/a.json") == before, "nothing was fetched")
        let data = try await engine.data("a")
        #expect(data == Self.good)
        #expect(await engine.status("a")?.lastError?.kind == .invalidURL)
      }
    }
  }

  /// Every generated URL as a redirect's `Location` (the origin answers `/r?i=N` with the N-th):
  /// each refresh ends with an outcome, none crashes the process.
  @Test func generatedRedirectLocationsNeverCrash() async throws {
    // A header value cannot hold CR or LF; everything else goes out as it is.
    let locations = HostileURLs.generate(1200).map {
      $0.replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "")
    }
    try await withOrigin { origin in
      await origin.setHandler("/r") { request in
        let index = Int(request.target.split(separator: "=").last ?? "") ?? 0
        return OriginResponse(
          status: 302, headers: [OriginHeader("Location", locations[index % locations.count])])
      }
      let assets = locations.indices.map { index in
        AssetDefinition(
          id: "r\(index)", remote: URL(string: "\(origin.baseURL)/r?i=\(index)"), format: .binary,
          refresh: .manual, timeout: 10)
      }
      try await withEngine(assets) { engine, _ in
        let outcomes = await engine.refreshAll()
        #expect(outcomes.count == locations.count)
        let refused = outcomes.filter { $0.outcome.failure?.kind == .invalidURL }.count
        #expect(refused > 100, "hostile locations are refused as invalid_url")
        #expect(
          outcomes.first?.outcome.failure?.kind == .invalidURL,
          "the known crash (port 70000) is refused")
      }
    }
  }

  /// Every generated URL as a manifest target's `url`: each asset ends refused or checked, none
  /// crashes the process.
  @Test func generatedManifestURLsNeverCrash() async throws {
    let urls = HostileURLs.generate(1000)
    let targets = urls.indices.map { index in
      #"{"id":"m\#(index)","url":\#(HostileURLs.jsonString(urls[index]))}"#
    }
    try await withOrigin { origin in
      await origin.setResource(
        "/manifest.json", body: Data(#"{"assets":[\#(targets.joined(separator: ","))]}"#.utf8),
        contentType: "application/json")
      let manifest = URL(string: "\(origin.baseURL)/manifest.json")!
      try await withEngine([], manifest: manifest) { engine, _ in
        let outcomes = await engine.refreshAll()
        #expect(outcomes.count == urls.count, "every manifest target became an asset")
        for (id, outcome) in outcomes {
          if let failure = outcome.failure { #expect(!failure.message.isEmpty, "\(id)") }
        }
        #expect(outcomes.first?.outcome.failure?.kind == .invalidURL)
        let refused = outcomes.filter { $0.outcome.failure?.kind == .invalidURL }.count
        #expect(refused > 100)
      }
    }
  }
}
