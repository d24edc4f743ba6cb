import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

/// `assetwatch verify` on its own engine: a copy damaged on disk is found (at the engine's start,
/// which then discards it) and reported, with exit 1; the next run finds no cached copy.
@Suite struct VerifyCommandTests {
  @Test func aCopyDamagedOnDiskIsReportedOnceThenGone() async throws {
    try await withOrigin { origin in
      await origin.setResource(
        "/flags.json", body: Data(#"{"beta": true}"#.utf8), contentType: "application/json")
      try await withTemporaryDirectory { dir in
        _ = try dir.file("bundled/flags.json", #"{"beta": false}"#)
        _ = try dir.file(
          "assets.json",
          """
          { "appVersion": "1", "cacheDirectory": "cache",
            "assets": [ { "id": "flags", "remote": "\(origin.baseURL)/flags.json",
                          "bundled": "bundled/flags.json", "format": "json" } ] }
          """)
        let refreshed = try await AssetWatchBinary.run(["refresh"], cwd: dir.url)
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        let objects = dir.url.appendingPathComponent("cache/objects")
        let blob = try #require(
          try FileManager.default.contentsOfDirectory(atPath: objects.path).first)
        try Data(#"{"beta": 666}"#.utf8).write(to: objects.appendingPathComponent(blob))

        let first = try await AssetWatchBinary.run(["verify"], cwd: dir.url)
        #expect(first.status == 1, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("flags  DAMAGED:"), "\(first.stdout)")
        let second = try await AssetWatchBinary.run(["verify"], cwd: dir.url)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("flags  no cached copy"), "\(second.stdout)")
      }
    }
  }
}
