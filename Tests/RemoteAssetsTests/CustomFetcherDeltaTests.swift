import AssetWatchTestKit
import ChunkIndex
import DemoOrigin
import Foundation
import NIOCore
import RemoteAssetsTestKit
import Synchronization
import Testing

@testable import RemoteAssets

/// Ranges are a capability of the fetcher protocol, not of the built-in HTTP fetcher: an app's
/// own ``AssetFetcher`` that offers them gets delta updates, one that does not gets whole
/// downloads, and the engine never looks at which type it holds.
@Suite struct CustomFetcherDeltaTests {
  /// An app's fetcher: files in memory under `https://assets.example/`, no network.
  final class MemoryFetcher: AssetFetcher {
    struct Counts: Sendable {
      var whole: [String: Int] = [:]
      var ranges = 0
      var rangeBytes: Int64 = 0
    }
    let offersRanges: Bool
    let files = Mutex<[String: Data]>([:])
    let counts = Mutex(Counts())

    init(offersRanges: Bool) { self.offersRanges = offersRanges }

    func put(_ path: String, _ bytes: Data) { files.withLock { $0[path] = bytes } }

    static func etag(_ bytes: Data) -> String { "\"\(sha256Hex(bytes).prefix(16))\"" }

    func canFetch(_ url: URL) -> Bool { url.host == "assets.example" }

    func canFetchRanges(_ url: URL) -> Bool { offersRanges && canFetch(url) }

    func fetch(_ request: FetchRequest, into sink: DownloadSink) async throws -> FetchResponse {
      let path = request.url.path
      guard let bytes = files.withLock({ $0[path] }) else {
        throw FetchError(.httpStatus, "HTTP 404 for \(path)", status: 404)
      }
      let etag = Self.etag(bytes)
      if request.etag == etag { return .notModified(FetchMetadata(etag: etag)) }
      counts.withLock { $0.whole[path, default: 0] += 1 }
      try sink.announce(totalBytes: Int64(bytes.count), etag: etag)
      try sink.write(bytes)
      return .downloaded(FetchMetadata(etag: etag))
    }

    func fetchRange(_ request: FetchRequest, range: Range<Int64>, total: Int64) async throws
      -> RangeAnswer
    {
      guard offersRanges else {
        Issue.record("asked for a range it never offered")
        return .ignored(status: 200)
      }
      guard let bytes = files.withLock({ $0[request.url.path] }), Int64(bytes.count) == total
      else { throw FetchError(.httpStatus, "HTTP 416", status: 416) }
      counts.withLock {
        $0.ranges += 1
        $0.rangeBytes += range.upperBound - range.lowerBound
      }
      let slice = bytes[Int(range.lowerBound)..<Int(range.upperBound)]
      return .partial([ByteBuffer(bytes: slice)], FetchMetadata(etag: Self.etag(bytes)))
    }
  }

  static let size = 4 << 20
  static let v1 = Data(GeneratedBytes(length: size, seed: 3601).bytes(in: 0..<size))
  static let v2: Data = {
    var bytes = v1
    let fresh = GeneratedBytes(length: 16 << 10, seed: 3602).bytes(in: 0..<(16 << 10))
    bytes.replaceSubrange((2 << 20)..<((2 << 20) + (16 << 10)), with: fresh)
    return bytes
  }()

  /// Publishes `bytes` as `version` with its chunk index and a manifest naming both.
  static func publish(_ bytes: Data, version: String, on fetcher: MemoryFetcher, scratch: URL)
    throws
  {
    let file = scratch.appendingPathComponent("model-\(version).bin")
    try bytes.write(to: file)
    let index = try ChunkIndex.build(
      path: file.path, parameters: ChunkingParameters(averageSize: 64 << 10))
    let encoded = Data(index.encoded())
    fetcher.put("/model.bin", bytes)
    fetcher.put("/model.bin.chunks", encoded)
    let entry = """
      {"id":"model","url":"https://assets.example/model.bin","size":\(bytes.count),\
      "sha256":"\(sha256Hex(bytes))","version":"\(version)","chunks":{"url":\
      "https://assets.example/model.bin.chunks","size":\(encoded.count),\
      "sha256":"\(sha256Hex(encoded))"}}
      """
    fetcher.put(
      "/manifest.json", Data(#"{"version":"\#(version)","assets":[\#(entry)]}"#.utf8))
  }

  /// v1 then v2 through `fetcher`; returns the counts of v2's transfer.
  static func update(through fetcher: MemoryFetcher) async throws -> MemoryFetcher.Counts {
    try await withTemporaryDirectory { scratch in
      try publish(v1, version: "v1", on: fetcher, scratch: scratch.url)
      let asset = AssetDefinition(
        id: "model", remote: URL(string: "https://assets.example/model.bin"),
        maxBytes: 64 << 20, refresh: .manual, timeout: 30)
      return try await withEngine(
        [asset], fetchers: [fetcher],
        manifest: URL(string: "https://assets.example/manifest.json")
      ) { engine, _ in
        let first = await engine.refresh("model")
        #expect(first.isUpdated, "v1: \(first)")
        #expect(await engine.status("model")?.sha256 == sha256Hex(v1))
        try publish(v2, version: "v2", on: fetcher, scratch: scratch.url)
        let before = fetcher.counts.withLock { $0 }
        let second = await engine.refresh("model")
        #expect(second.isUpdated, "v2: \(second)")
        #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
        let after = fetcher.counts.withLock { $0 }
        return MemoryFetcher.Counts(
          whole: after.whole.merging(before.whole) { $0 - $1 },
          ranges: after.ranges - before.ranges, rangeBytes: after.rangeBytes - before.rangeBytes)
      }
    }
  }

  @Test func anAppsFetcherThatOffersRangesGetsDeltaUpdates() async throws {
    let moved = try await Self.update(through: MemoryFetcher(offersRanges: true))
    #expect(moved.whole["/model.bin", default: 0] == 0, "no whole download of v2: \(moved)")
    #expect(moved.ranges >= 1)
    #expect(moved.rangeBytes < Int64(Self.size / 10), "fetched \(moved.rangeBytes) of \(Self.size)")
  }

  @Test func anAppsFetcherWithoutRangesGetsWholeDownloads() async throws {
    let moved = try await Self.update(through: MemoryFetcher(offersRanges: false))
    #expect(moved.whole["/model.bin", default: 0] == 1, "\(moved)")
    #expect(moved.ranges == 0)
  }
}
