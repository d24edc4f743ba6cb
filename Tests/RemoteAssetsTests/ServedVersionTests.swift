import AssetWatchTestKit
import Crypto
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// A refresh's reply carries each asset's version as its status shows it: the version a file on
/// disk holds is cleaned for a terminal and cut to 64 characters there too.
@Suite struct ServedVersionTests {
  @Test func theReplysVersionIsTheStatussVersion() async throws {
    try await withTemporaryDirectory { dir in
      let bytes = Data(#"{"a":1}"#.utf8)
      let sha = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
      let hostile = "v1\u{1B}[31m\u{07}" + String(repeating: "x", count: 100)
      let store = try CacheStore(root: dir.cache)
      let objects = dir.cache.appendingPathComponent("objects")
      #expect(
        FileManager.default.createFile(
          atPath: objects.appendingPathComponent(sha).path, contents: bytes))
      var entry = CacheEntry(id: "flags", appVersion: "1.0.0")
      var copy = Generation(sha256: sha, size: Int64(bytes.count), fetchedAt: Date())
      copy.version = hostile
      entry.current = copy
      try store.writeEntry(entry)
      let asset = AssetDefinition(
        id: "flags", remote: nil, bundled: .bytes(Data("{}".utf8)), format: .json)
      try await withEngine([asset], cache: dir.cache) { engine in
        let shown = try #require(await engine.status("flags")?.version)
        #expect(await engine.servedVersion("flags") == shown)
        #expect(shown.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F })
        #expect(shown == TerminalText.sanitize(hostile, maxLength: 64))
        #expect(shown.count < hostile.count)
        #expect(shown.hasPrefix("v1"))
        #expect(await engine.servedVersion("missing") == nil)
      }
    }
  }
}
