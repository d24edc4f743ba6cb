import AssetJSON
import AssetWatchTestKit
import Foundation
import RemoteAssets
import RemoteAssetsTestKit
import Testing

@testable import AssetWatchCLI

/// The cache's size and limit in `status --json` (`cache`, last) and plain `status` (a line
/// under the table), and a bad `cacheLimit` refused like every config error (exit 2).
@Suite struct CacheOutputTests {
  static func snapshot(_ cache: CacheUsage?) -> EngineSnapshot {
    var info = EngineInfo(appVersion: "1.0")
    info.cache = cache
    return EngineSnapshot(info: info, assets: [], at: Date(timeIntervalSince1970: 1_790_000_000))
  }

  @Test func statusJSONEndsWithTheCacheSizeAndLimit() throws {
    let snapshot = Self.snapshot(CacheUsage(bytes: 1_288_490_189, limit: 2 << 30))
    var text = ""
    try StatusOutput.stream(snapshot, configPath: "assets.json") { text += $0 }
    #expect(
      text == (try OrderedJSONEncoder().encode(StatusOutput(snapshot, configPath: "assets.json"))))
    #expect(text.hasPrefix("{\n  \"assetwatchVersion\" : "))
    #expect(
      text.hasSuffix(
        "  \"trust\" : null,\n  \"cache\" : {\n    \"bytes\" : 1288490189,\n    \"limit\" : 2147483648\n  }\n}"
      ), "\(text)")
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    let cache = try #require(object?["cache"] as? [String: Any])
    #expect(cache["bytes"] as? Int == 1_288_490_189)
    #expect(cache["limit"] as? Int == 2 << 30)
  }

  @Test func plainStatusSaysTheSizeUnderTheTable() {
    #expect(
      StatusTable.cacheLine(Self.snapshot(CacheUsage(bytes: 1_288_490_189, limit: 2 << 30)).info)
        == "cache: 1.2 GiB / 2.0 GiB")
    #expect(
      StatusTable.cacheLine(Self.snapshot(CacheUsage(bytes: 3 << 30, limit: 2 << 30)).info)
        == "cache: 3.0 GiB / 2.0 GiB (over the limit)")
    #expect(StatusTable.cacheLine(Self.snapshot(CacheUsage(bytes: 2048)).info) == "cache: 2.0 KiB")
    #expect(StatusTable.cacheLine(Self.snapshot(nil).info) == nil)
  }

  @Test func anEngineReportsItsCacheSizeWithTheConfiguredLimit() async throws {
    let asset = AssetDefinition(
      id: "flags", remote: nil, bundled: .bytes(Data(#"{"a":1}"#.utf8)), format: .json)
    try await withEngine([asset], configure: { $0.cacheLimit = 5 << 20 }) { engine, _ in
      let snapshot = await engine.snapshot()
      let output = StatusOutput(snapshot, configPath: "assets.json")
      #expect(output.cache?.limit == 5 << 20)
      #expect((output.cache?.bytes ?? 0) > 0)  // the marker, at least
    }
  }

  @Test func aBadCacheLimitExitsTwo() async throws {
    try await withTemporaryDirectory { dir in
      for bad in [#""lots""#, #""1KiB""#, "true", #""-2GiB""#] {
        let path = dir.url("assets.json").path
        try? FileManager.default.removeItem(atPath: path)
        _ = try dir.file(
          "assets.json",
          """
          { "appVersion": "1", "cacheLimit": \(bad),
            "assets": [ { "id": "a", "remote": "https://cdn.example.com/a" } ] }
          """)
        try await CommandExitCodeTests.expectExit(["check", "--config", path], 2)
        try await CommandExitCodeTests.expectExit(["status", "--config", path], 2)
      }
    }
  }
}
