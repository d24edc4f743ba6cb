import AssetWatchTestKit
import DemoOrigin
import Foundation
import NIOCore
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The partial file a download streams into: created by the first byte (so a 304 or an error
/// answer costs no file), handed to the kernel's writeback while a large body arrives.
@Suite struct PartialFileTests {
  func tmpNames(_ cache: URL) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("tmp").path))
      ?? []
  }

  @Test func aRefreshAnsweredWithoutABodyCreatesNoFile() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a.json", body: Data("[1]".utf8), contentType: "application/json")
      let asset = AssetDefinition(
        id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json, timeout: 30)
      try await withEngine([asset]) { engine, dir in
        let cache = dir.cache
        #expect(await engine.refresh("a").isUpdated)
        // The next answer waits until the test has looked at tmp/.
        let (gate, open) = AsyncStream<Void>.makeStream()
        await origin.setHandler("/a.json") { _ in
          for await _ in gate { break }
          return OriginResponse(status: 304)
        }
        async let second = engine.refresh("a")
        await origin.waitForRequests(path: "/a.json", count: 2)
        #expect(tmpNames(cache).isEmpty, "no partial while the request is out")
        open.yield()
        open.finish()
        #expect("\(await second)" == "\(RefreshOutcome.notModified)")
        #expect(tmpNames(cache).isEmpty)
      }
    }
  }

  /// An empty 200 still commits: the file is created when the body ends without a byte.
  @Test func anEmptyBodyIsStillCommitted() async throws {
    try await withOrigin { origin in
      await origin.setResource("/e.bin", body: Data(), contentType: "application/octet-stream")
      let asset = AssetDefinition(
        id: "e", remote: URL(string: "\(origin.baseURL)/e.bin"), format: .binary, timeout: 30)
      try await withEngine([asset]) { engine, _ in
        #expect(await engine.refresh("e").isUpdated)
        let status = await engine.status("e")
        #expect(status?.source == .cached)
        #expect(status?.size == 0)
      }
    }
  }

  @Test func aLargeBodyIsHandedToWritebackAsItArrives() throws {
    try withTemporaryDirectory { (dir: TemporaryDirectory) in
      let store = try CacheStore(root: dir.url("c"))
      let partial = try store.createPartial(for: "big")
      let chunk = ByteBuffer(repeating: 0x5A, count: 1 << 20)
      let total = 3 * Int(PartialFile.writebackInterval) + 1
      var written = 0
      while written < total {
        var piece = chunk
        if total - written < piece.readableBytes { piece.moveWriterIndex(to: total - written) }
        try partial.write(piece)
        written += piece.readableBytes
      }
      try partial.sync()
      #expect(partial.writebacksStarted == 3)
      #expect(partial.bytesWritten == Int64(total))
      var info = stat()
      #expect(fstat(try partial.descriptor(), &info) == 0)
      #expect(Int(info.st_size) == total)
      partial.close()

      let small = try store.createPartial(for: "small")
      try small.write(ByteBuffer(repeating: 1, count: 4096))
      try small.sync()
      #expect(small.writebacksStarted == 0)
      small.discard()
    }
  }
}
