import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// One home for defaults: a config without `defaults`, a definition built in code and the
/// manifest request all get ``AssetDefaults/standard``; a config's `defaults` reach its assets
/// and the engine's `assetDefaults` alike.
@Suite struct AssetDefaultsTests {
  func parse(_ json: String, dir: TemporaryDirectory) throws -> EngineConfiguration {
    try ConfigurationLoader.parse(
      Data(json.utf8), path: dir.url.appendingPathComponent("assets.json").path, environment: [:])
  }

  @Test func theDocumentedValuesLiveInOnePlace() {
    let standard = AssetDefaults.standard
    #expect(standard.refresh == .every(30))
    #expect(standard.ttl == .seconds(300))
    #expect(standard.maxStale == 3600)
    #expect(standard.timeout == 10)
    #expect(standard.maxBytes == 64 << 20)
    let url = URL(string: "https://x.example/a")!
    #expect(AssetDefinition(id: "a", remote: url) == standard.definition(id: "a", remote: url))
    let request = FetchRequest(url: url)
    #expect(request.timeout == standard.timeout && request.maxBytes == standard.maxBytes)
  }

  @Test func aConfigWithoutDefaultsGetsTheStandardOnes() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let config = try parse(
      #"{ "appVersion": "1", "assets": [ { "id": "a", "remote": "https://x.example/a" } ] }"#,
      dir: dir)
    #expect(config.assetDefaults == .standard)
    let url = URL(string: "https://x.example/a")
    #expect(config.assets == [AssetDefaults.standard.definition(id: "a", remote: url)])
  }

  @Test func aConfigsDefaultsReachItsAssetsAndTheEngine() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let config = try parse(
      """
      { "appVersion": "1", "manifest": "https://x.example/m.json",
        "defaults": { "refreshEvery": "1m", "ttl": "2m", "maxStale": "3m", "timeout": "4s",
                      "maxBytes": "5MiB", "allowInsecure": true },
        "assets": [ { "id": "a", "remote": "https://x.example/a", "timeout": "9s" } ] }
      """, dir: dir)
    var expected = AssetDefaults()
    expected.refresh = .every(60)
    expected.ttl = .seconds(120)
    expected.maxStale = 180
    expected.timeout = 4
    expected.maxBytes = 5 << 20
    expected.allowInsecure = true
    #expect(config.assetDefaults == expected)
    #expect(config.defaultRefresh == .every(60))
    var asset = expected.definition(id: "a", remote: URL(string: "https://x.example/a"))
    asset.timeout = 9
    #expect(config.assets == [asset])
  }
}
