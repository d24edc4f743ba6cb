import AssetWatchTestKit
import Foundation
import Testing

@testable import AssetWatchCLI

/// `assetwatch check` with a `tuf` block: a good one passes (exit 0), a bad one exits 2.
@Suite struct TUFCheckTests {
  static func tufConfig(metadataURL: String, manifest: Bool) -> String {
    """
    {
      "appVersion": "1",
      \(manifest ? #""manifest": "https://updates.example.com/m.json","# : "")
      "tuf": {
        "metadataURL": "\(metadataURL)",
        "targetsURL": "https://updates.example.com/targets/",
        "root": "root.json"
      },
      "assets": [ { "id": "hello", "targetPath": "files/hello.txt" } ]
    }
    """
  }

  @Test func checkAcceptsAGoodTUFBlockAndExitsTwoForABadOne() async throws {
    try await withTemporaryDirectory { dir in
      try FileManager.default.copyItem(
        at: TUFRepositoryFixture.trustedRootURL(), to: dir.url("root.json"))
      let path = dir.url("assets.json").path
      _ = try dir.file(
        "assets.json",
        Self.tufConfig(metadataURL: "https://updates.example.com/metadata/", manifest: false))
      try await CommandExitCodeTests.expectExit(["check", "--config", path], 0)
      try FileManager.default.removeItem(atPath: path)
      _ = try dir.file(
        "assets.json",
        Self.tufConfig(metadataURL: "https://updates.example.com/metadata/", manifest: true))
      try await CommandExitCodeTests.expectExit(["check", "--config", path], 2)
      try FileManager.default.removeItem(atPath: path)
      _ = try dir.file(
        "assets.json", Self.tufConfig(metadataURL: "ftp://updates.example.com/", manifest: false))
      try await CommandExitCodeTests.expectExit(["check", "--config", path], 2)
    }
  }
}
