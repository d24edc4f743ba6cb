import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The engine against nginx: conditional requests, 304s and validation against a real server.
@Suite(
  .enabled(if: ExternalTool.shouldRun("nginx"), "needs nginx (apt-get install -y nginx-light)"),
  .serialized)
struct NginxRefreshTests {
  /// A 304 ends its request cleanly, so revalidating many assets reuses the pool's connections.
  /// (A response dropped before the client saw its end was cancelled, which closed its
  /// connection: nginx saw hundreds of new connections per thousand revalidations.)
  @Test func revalidationsReuseConnections() async throws {
    try await withNginx { nginx in
      try await withTemporaryDirectory { dir in
        let assets = try (0..<120).map { i in
          try nginx.put("many/a\(i).json", Data("[\(i)]".utf8))
          return AssetDefinition(
            id: "a\(i)", remote: URL(string: "\(nginx.baseURL)/many/a\(i).json"), format: .json)
        }
        try await withEngine(assets, cache: dir.cache, configure: { $0.maxConcurrentTransfers = 4 })
        {
          engine in
          #expect(await engine.refreshAll().allSatisfy { $0.outcome.isUpdated })
          let afterSync = nginx.connections(forPathsStartingWith: "/many/")
          let second = await engine.refreshAll()
          #expect(second.allSatisfy { $0.outcome == .notModified })
          let opened = nginx.connections(forPathsStartingWith: "/many/").subtracting(afterSync)
          #expect(opened.count <= 4, "120 revalidations opened \(opened.count) new connections")
        }
      }
    }
  }

  @Test func updatedThenNotModifiedThenUpdatedThenInvalidKeepsLastGood() async throws {
    try await withNginx { nginx in
      try await withTemporaryDirectory { dir in
        try nginx.put("flags.json", Data(#"{"v": 1}"#.utf8))
        let asset = AssetDefinition(
          id: "flags", remote: URL(string: "\(nginx.baseURL)/flags.json"),
          bundled: .bytes(Data("{}".utf8)), format: .json)
        try await withEngine([asset], cache: dir.cache) { engine in

          #expect(await engine.refresh("flags").isUpdated)
          let first = try #require(await engine.status("flags"))
          #expect(first.source == .cached)
          #expect(first.etag != nil)
          #expect(try await engine.data("flags") == Data(#"{"v": 1}"#.utf8))

          // nginx answers the conditional request with 304.
          #expect(await engine.refresh("flags") == .notModified)
          let logged = await nginx.hits("/flags.json", atLeast: 2)
          #expect(logged.last?.contains("\" 304 ") == true)

          // Changed content (nginx's ETag includes mtime and size) -> updated.
          try nginx.put("flags.json", Data(#"{"v": 22}"#.utf8))
          #expect(await engine.refresh("flags").isUpdated)
          let second = try #require(await engine.status("flags"))
          #expect(second.sha256 != first.sha256)
          #expect(second.canRollback)

          // Invalid JSON -> failed; the last good bytes are still served, hash unchanged.
          // A different size: nginx derives its ETag from mtime (whole seconds) and size.
          try nginx.put("flags.json", Data(#"{"v": 4444"#.utf8))
          let failure = try #require(await engine.refresh("flags").failure)
          #expect(failure.kind == .invalid)
          #expect(failure.message.contains("invalid JSON"))
          let after = try #require(await engine.status("flags"))
          #expect(after.sha256 == second.sha256)
          #expect(after.state(at: Date()) == .failed)
          #expect(after.lastError?.kind == .invalid)
          #expect(try await engine.data("flags") == Data(#"{"v": 22}"#.utf8))
        }
      }
    }
  }

  @Test func largeBodyStreamsToDiskWithProgressAndMatchingHash() async throws {
    try await withNginx { nginx in
      try await withTemporaryDirectory { dir in
        let bytes = patternedData(megabytes: 6, period: 4096)
        try nginx.put("slow/model.bin", bytes)
        let sha = sha256Hex(bytes)
        let asset = AssetDefinition(
          id: "model", remote: URL(string: "\(nginx.baseURL)/slow/model.bin"), format: .binary,
          expectedSize: Int64(bytes.count), sha256: sha, maxBytes: 16 << 20)
        try await withEngine([asset], cache: dir.cache) { engine in
          let events = await engine.events()
          async let outcome = engine.refresh("model")
          let progress = await firstEvent(in: events) { event in
            if case .progress(_, let p) = event {
              return p.receivedBytes > 0 && p.receivedBytes < Int64(6 << 20)
            }
            return false
          }
          #expect(
            progress != nil,
            "a progress event arrives mid-transfer (nginx limits the rate to 2 MiB/s)")
          #expect(await outcome.isUpdated)
          #expect(await engine.status("model")?.sha256 == sha)
        }
      }
    }
  }
}
