import AssetWatchTestKit
import ChunkIndex
import Crypto
import DemoOrigin
import Foundation
import MetricsTestKit
import RemoteAssetsTestKit
import Synchronization
import Testing

@testable import RemoteAssets

/// Large assets move only what changed (issue 21): with a chunk index named by the manifest and
/// a cached copy, a new version reuses the chunks the cache holds and fetches the rest with
/// `Range` requests against the asset's own URL, from a real HTTP server on loopback. Whatever
/// goes wrong with the delta (no index, a bad one, one that lies, a server without `Range`),
/// the update falls back to one whole download and still lands.
@Suite struct DeltaUpdateTests {
  /// 8 MiB of pseudo-random bytes (content-defined chunking needs content, not a pattern).
  static let size = 8 << 20
  static let v1 = Data(GeneratedBytes(length: size, seed: 2101).bytes(in: 0..<size))
  /// 64 KiB chunks on average: about 128 chunks in 8 MiB.
  static let parameters = ChunkingParameters(averageSize: 64 << 10)

  /// `base` with `count` bytes at each of `offsets` overwritten by other bytes.
  static func changed(_ base: Data, at offsets: [Int], count: Int = 16 << 10, seed: UInt64)
    -> Data
  {
    var bytes = base
    for (n, offset) in offsets.enumerated() {
      let fresh = GeneratedBytes(length: count, seed: seed + UInt64(n)).bytes(in: 0..<count)
      bytes.replaceSubrange(offset..<(offset + count), with: fresh)
    }
    return bytes
  }

  /// What the origin serves as the index.
  enum IndexMode {
    case good
    /// The manifest names an index the origin does not have (404).
    case missing
    /// The manifest names (size and hash of) bytes that are not an index.
    case garbage
    /// The origin serves other bytes than the ones the manifest names.
    case swapped
    /// A valid index whose hash for one chunk `lyingChunk` (one that must be fetched) is wrong.
    case lying(chunk: Int)
  }

  /// A loopback origin serving `/model.bin`, its index and a manifest naming both.
  struct Publisher {
    let origin: LoopbackOrigin
    let scratch: URL

    /// Publishes `bytes` as `version`; returns the index made for it.
    @discardableResult
    func publish(
      _ bytes: Data, version: String, index mode: IndexMode = .good, pinsHash: Bool = true
    ) async throws -> ChunkIndex {
      let file = scratch.appendingPathComponent("model-\(version).bin")
      try bytes.write(to: file)
      var index = try ChunkIndex.build(path: file.path, parameters: DeltaUpdateTests.parameters)
      if case .lying(let chunk) = mode {
        let other = GeneratedBytes(length: 32, seed: 7).bytes(in: 0..<32)
        index.chunks[chunk].hash = ChunkHash(SHA256.hash(data: other))
      }
      let encoded = Data(index.encoded())
      var named = encoded
      switch mode {
      case .good, .lying: break
      case .missing: named = Data("not served".utf8)
      case .garbage:
        named = Data("assetwatch-chunks 1\nthis is not an index\n".utf8)
      case .swapped: named = Data(encoded.reversed())
      }
      await origin.setResource(
        "/model.bin", body: bytes, contentType: "application/octet-stream")
      switch mode {
      case .missing: await origin.remove("/model.bin.chunks")
      case .garbage:
        await origin.setResource("/model.bin.chunks", body: named, contentType: "text/plain")
      default:
        await origin.setResource("/model.bin.chunks", body: encoded, contentType: "text/plain")
      }
      let pin = pinsHash ? #""sha256":"\#(sha256Hex(bytes))","# : ""
      let entry = """
        {"id":"model","url":"/model.bin","size":\(bytes.count),\(pin)\
        "version":"\(version)","chunks":{"url":"/model.bin.chunks","size":\(named.count),\
        "sha256":"\(sha256Hex(named))"}}
        """
      await origin.setResource(
        "/manifest.json", body: Data(#"{"version":"\#(version)","assets":[\#(entry)]}"#.utf8),
        contentType: "application/json")
      return index
    }

    /// The bytes the `Range` requests for `/model.bin` since request number `since` asked for,
    /// and how many requests for it had no `Range` (whole downloads).
    func moved(since: Int, path: String = "/model.bin") async
      -> (rangeBytes: Int, ranges: Int, whole: Int)
    {
      let requests = await origin.requests(path: path).dropFirst(since)
      var bytes = 0
      var ranges = 0
      var whole = 0
      for request in requests {
        guard let range = request.header("Range") else {
          whole += 1
          continue
        }
        let span = range.dropFirst("bytes=".count).split(separator: "-")
        if span.count == 2, let a = Int(span[0]), let b = Int(span[1]) {
          bytes += b - a + 1
          ranges += 1
        }
      }
      return (bytes, ranges, whole)
    }
  }

  /// An engine following the publisher's manifest, over a fresh cache.
  func withPublisher(
    metrics: TestMetrics? = nil,
    _ body: (Publisher, AssetEngine, TemporaryDirectory) async throws -> Void
  ) async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { scratch in
        let publisher = Publisher(origin: origin, scratch: scratch.url)
        try await publisher.publish(Self.v1, version: "v1")
        let asset = AssetDefinition(
          id: "model", remote: URL(string: "\(origin.baseURL)/model.bin"), maxBytes: 64 << 20,
          refresh: .manual, timeout: 30)
        try await withEngine(
          [asset], manifest: URL(string: "\(origin.baseURL)/manifest.json"),
          metricsFactory: metrics
        ) { engine, dir in
          let first = await engine.refresh("model")
          #expect(first.isUpdated, "v1 lands whole: \(first)")
          #expect(
            await origin.requestCount(path: "/model.bin.chunks") == 1,
            "fetched once after the whole download, kept beside the blob")
          try await body(publisher, engine, dir)
        }
      }
    }
  }

  /// The first `delta update: …` log line on `events` ("" when none came).
  func deltaLog(_ events: AsyncStream<EngineEvent>) async -> String {
    let event = await firstEvent(in: events, timeout: .seconds(120)) {
      if case .log(let entry) = $0 { entry.message.hasPrefix("delta update:") } else { false }
    }
    guard case .log(let entry)? = event else { return "" }
    return entry.message
  }

  @Test func anInPlaceChangeFetchesOnlyTheChangedChunks() async throws {
    let metrics = TestMetrics()
    try await withPublisher(metrics: metrics) { publisher, engine, _ in
      let v2 = Self.changed(Self.v1, at: [1 << 20, 4 << 20, 6 << 20], seed: 10)
      try await publisher.publish(v2, version: "v2")
      let before = await publisher.origin.requestCount(path: "/model.bin")
      let events = await engine.events()
      let refresh = Task { await engine.refresh("model") }
      let progress = await firstEvent(in: events, timeout: .seconds(120)) {
        if case .progress(_, let p) = $0 { p.reusedBytes > 0 } else { false }
      }
      #expect(await refresh.value.isUpdated)
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
      let moved = await publisher.moved(since: before)
      #expect(moved.whole == 0, "no whole download")
      #expect(moved.ranges >= 1)
      #expect(moved.rangeBytes < Self.size / 10, "fetched \(moved.rangeBytes) of \(Self.size)")
      guard case .progress(_, let p)? = progress else {
        Issue.record("no progress event showed reused bytes")
        return
      }
      #expect(p.reusedBytes + p.fetchedBytes == p.receivedBytes)
      let detail = await engine.status("model")?.history.first?.detail ?? ""
      #expect(detail.contains("reused"), "\(detail)")
      func counted(_ source: String) -> Int64 {
        metrics.counterTotal(
          label: "remote_assets_delta_bytes_total",
          dimensions: [("asset", "model"), ("source", source)])
      }
      #expect(counted("fetched") == Int64(moved.rangeBytes))
      #expect(counted("fetched") + counted("reused") == Int64(v2.count))
    }
  }

  /// A manifest that names the index but not the file's hash: the index is read once for the
  /// copy it describes, not on every check, and the next version still travels as a delta.
  @Test func aCheckDoesNotFetchAnIndexAlreadyRead() async throws {
    try await withPublisher { publisher, engine, _ in
      func indexFetches() async -> Int {
        await publisher.origin.requestCount(path: "/model.bin.chunks")
      }
      try await publisher.publish(Self.v1, version: "v1", pinsHash: false)
      for _ in 0..<3 {
        let outcome = await engine.refresh("model")
        #expect(!outcome.isUpdated, "\(outcome)")
      }
      #expect(await indexFetches() == 1, "read once: it describes the copy held")

      let v2 = Self.changed(Self.v1, at: [3 << 20], seed: 40)
      try await publisher.publish(v2, version: "v2", pinsHash: false)
      let before = await publisher.origin.requestCount(path: "/model.bin")
      #expect(await engine.refresh("model").isUpdated)
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
      #expect(await publisher.moved(since: before).whole == 0, "v2 came as a delta")
      #expect(await indexFetches() == 2)
      for _ in 0..<2 { #expect(!(await engine.refresh("model").isUpdated)) }
      #expect(await indexFetches() == 2, "v2's index described what v2 became")
    }
  }

  /// The index the manifest names for a version downloaded whole is kept beside its blob, so
  /// the next version's delta reads no cached copy to index it.
  @Test func aWholeDownloadKeepsThePublishedIndex() async throws {
    try await withPublisher { publisher, engine, dir in
      let sidecar = dir.cache.appendingPathComponent(
        "objects/\(sha256Hex(Self.v1)).chunks")
      let kept = try ChunkIndex(parsing: Array(try Data(contentsOf: sidecar)))
      let published = try ChunkIndex.build(
        path: publisher.scratch.appendingPathComponent("model-v1.bin").path,
        parameters: Self.parameters)
      #expect(kept.encoded() == published.encoded())

      func inode() throws -> Int {
        try #require(
          try FileManager.default.attributesOfItem(atPath: sidecar.path)[.systemFileNumber]
            as? Int)
      }
      let before = try inode()

      let v2 = Self.changed(Self.v1, at: [5 << 20], seed: 50)
      try await publisher.publish(v2, version: "v2")
      let requests = await publisher.origin.requestCount(path: "/model.bin")
      #expect(await engine.refresh("model").isUpdated)
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
      #expect(await publisher.moved(since: requests).whole == 0, "a delta, no fallback")
      // Indexing the cached copy would have written the sidecar again (a new file, renamed in).
      #expect(try inode() == before, "the kept index was used as it was")
    }
  }

  /// The asset's URL answers with a redirect (a CDN's signed location, say): each `Range`
  /// request follows it with its range, and the update is still a delta.
  @Test func rangesFollowARedirect() async throws {
    try await withPublisher { publisher, engine, _ in
      let v2 = Self.changed(Self.v1, at: [2 << 20, 7 << 20], seed: 60)
      try await publisher.publish(v2, version: "v2")
      let origin = publisher.origin
      await origin.setResource(
        "/store/model.bin", body: v2, contentType: "application/octet-stream")
      await origin.setHandler("/model.bin") { _ in
        OriginResponse(status: 302, headers: [OriginHeader("Location", "/store/model.bin")])
      }
      #expect(await engine.refresh("model").isUpdated)
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
      let moved = await publisher.moved(since: 0, path: "/store/model.bin")
      #expect(moved.whole == 0, "no whole download at the redirect's target")
      #expect(moved.ranges >= 1)
      #expect(moved.rangeBytes < Self.size / 10, "fetched \(moved.rangeBytes) of \(Self.size)")
      let asked = await origin.requests(path: "/model.bin").suffix(moved.ranges)
      #expect(asked.allSatisfy { $0.header("Range") != nil }, "each range asked the asset's URL")
    }
  }

  @Test func anInsertionShiftsNothing() async throws {
    try await withPublisher { publisher, engine, _ in
      var v2 = Self.v1
      let inserted = GeneratedBytes(length: 256 << 10, seed: 99).bytes(in: 0..<(256 << 10))
      v2.insert(contentsOf: inserted, at: 3 << 20)
      try await publisher.publish(v2, version: "v2")
      let before = await publisher.origin.requestCount(path: "/model.bin")
      #expect(await engine.refresh("model").isUpdated)
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
      let moved = await publisher.moved(since: before)
      #expect(moved.whole == 0)
      #expect(moved.rangeBytes < (256 << 10) + (1 << 20), "fetched \(moved.rangeBytes)")
    }
  }

  @Test func chunksComeFromAnyCachedGeneration() async throws {
    try await withPublisher { publisher, engine, _ in
      // v2 changes region A; v3 is v1 with region B changed (A as in v1): A comes from the
      // previous generation (v1), the rest from the current (v2); only B travels.
      let v2 = Self.changed(Self.v1, at: [2 << 20], count: 512 << 10, seed: 20)
      let v3 = Self.changed(Self.v1, at: [6 << 20], count: 64 << 10, seed: 30)
      try await publisher.publish(v2, version: "v2")
      #expect(await engine.refresh("model").isUpdated)
      try await publisher.publish(v3, version: "v3")
      let before = await publisher.origin.requestCount(path: "/model.bin")
      #expect(await engine.refresh("model").isUpdated)
      #expect(await engine.status("model")?.sha256 == sha256Hex(v3))
      let moved = await publisher.moved(since: before)
      #expect(moved.whole == 0)
      #expect(
        moved.rangeBytes < 512 << 10,
        "region A (512 KiB) came from v1, only B travelled: fetched \(moved.rangeBytes)")
    }
  }

  /// Each way the delta can fail ends in one whole download that lands, and says why.
  @Test(arguments: [
    ("missing", "could not be fetched"), ("garbage", "invalid"), ("swapped", "SHA-256"),
  ])
  func aBadIndexFallsBackToOneWholeDownload(mode: String, reason: String) async throws {
    try await withPublisher { publisher, engine, _ in
      let v2 = Self.changed(Self.v1, at: [1 << 20], seed: 40)
      let index: IndexMode =
        switch mode {
        case "missing": .missing
        case "garbage": .garbage
        default: .swapped
        }
      try await publisher.publish(v2, version: "v2", index: index)
      let before = await publisher.origin.requestCount(path: "/model.bin")
      let indexBefore = await publisher.origin.requestCount(path: "/model.bin.chunks")
      let events = await engine.events()
      #expect(await engine.refresh("model").isUpdated)
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
      let moved = await publisher.moved(since: before)
      #expect(moved.whole == 1 && moved.ranges == 0, "\(moved)")
      #expect(
        await publisher.origin.requestCount(path: "/model.bin.chunks") == indexBefore + 1,
        "the index refused once is not fetched again to be kept")
      let log = await deltaLog(events)
      #expect(log.contains("delta update:") && log.contains(reason), "\(log)")
      #expect(log.contains("downloading the whole file"))
    }
  }

  @Test func aServerThatIgnoresRangeGetsOneWholeDownload() async throws {
    let metrics = TestMetrics()
    try await withPublisher(metrics: metrics) { publisher, engine, _ in
      let v2 = Self.changed(Self.v1, at: [1 << 20], seed: 50)
      try await publisher.publish(v2, version: "v2")
      // The same bytes, from a server that answers every request with the whole body.
      await publisher.origin.setHandler("/model.bin") { _ in
        OriginResponse(
          headers: [OriginHeader("ETag", "\"v2\"")], body: .data(v2))
      }
      let events = await engine.events()
      #expect(await engine.refresh("model").isUpdated)
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
      let log = await deltaLog(events)
      #expect(log.contains("ignores Range"), "\(log)")
      let requests = await publisher.origin.requests(path: "/model.bin")
      #expect(requests.last?.header("Range") == nil, "the fallback asked for the whole file")
      #expect(
        metrics.counterTotal(
          label: "remote_assets_delta_fallbacks_total", dimensions: [("asset", "model")]) == 1)
    }
  }

  @Test func aChunkThatLiesIsNeverCommitted() async throws {
    try await withPublisher { publisher, engine, dir in
      let v2 = Self.changed(Self.v1, at: [4 << 20], seed: 60)
      let honest = try await publisher.publish(v2, version: "v2")
      // The lie is on a chunk the engine must fetch: one whose hash v1 lacks.
      let v1Index = try ChunkIndex.build(
        path: publisher.scratch.appendingPathComponent("model-v1.bin").path,
        parameters: Self.parameters)
      let held = Set(v1Index.chunks.map(\.hash))
      let fetched = try #require(honest.chunks.firstIndex { !held.contains($0.hash) })
      try await publisher.publish(v2, version: "v2", index: .lying(chunk: fetched))
      let before = await publisher.origin.requestCount(path: "/model.bin")
      let indexBefore = await publisher.origin.requestCount(path: "/model.bin.chunks")
      let events = await engine.events()
      #expect(await engine.refresh("model").isUpdated)
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2), "the real v2, fetched whole")
      let log = await deltaLog(events)
      #expect(log.contains("does not match the index"), "\(log)")
      #expect(await publisher.moved(since: before).whole == 1)
      // The index that lied is neither fetched again nor kept beside v2's blob.
      #expect(await publisher.origin.requestCount(path: "/model.bin.chunks") == indexBefore + 1)
      let sidecar = dir.cache.appendingPathComponent("objects/\(sha256Hex(v2)).chunks")
      #expect(!FileManager.default.fileExists(atPath: sidecar.path))
    }
  }

  @Test func aCachedCopysWrongSidecarCannotCommitWrongBytes() async throws {
    try await withPublisher { publisher, engine, dir in
      let v2 = Self.changed(Self.v1, at: [4 << 20], seed: 70)
      // A damaged sidecar beside v1 claims v1 holds every chunk of v2 (the bytes are v1's).
      let v1sha = sha256Hex(Self.v1)
      let v2file = publisher.scratch.appendingPathComponent("probe.bin")
      try v2.write(to: v2file)
      var claim = try ChunkIndex.build(path: v2file.path, parameters: Self.parameters)
      claim.fileSHA256 = v1sha
      claim.fileSize = Int64(Self.v1.count)
      let sidecar = dir.cache.appendingPathComponent("objects/\(v1sha).chunks")
      try Data(claim.encoded()).write(to: sidecar)
      try await publisher.publish(v2, version: "v2")
      let events = await engine.events()
      #expect(await engine.refresh("model").isUpdated)
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
      let log = await deltaLog(events)
      #expect(log.contains("assembled file's SHA-256"), "\(log)")
      // The sidecar that lied is gone: the next delta from v1 indexes it anew.
      #expect(!FileManager.default.fileExists(atPath: sidecar.path))
    }
  }

  /// Serves `bytes` honouring `Range: bytes=a-b` by hand; the first range that starts at
  /// `cutAt` is cut after a few bytes (the connection closes).
  static func rangeHandler(_ bytes: Data, cutAt: Int64) -> LoopbackOrigin.Handler {
    let pending = Mutex<Int64?>(cutAt)
    return rangeServer(bytes) { a, _, response in
      let cut = pending.withLock { cut -> Bool in
        guard cut == Int64(a) else { return false }
        cut = nil
        return true
      }
      if cut { response.interruption = .close(afterBodyBytes: 100) }
    }
  }

  /// Whether a delta's assembled bytes are kept for the next attempt.
  func keptPartial(_ dir: TemporaryDirectory) -> Bool {
    FileManager.default.fileExists(
      atPath: dir.cache.appendingPathComponent("tmp/model.resume.part").path)
  }

  @Test func aCutDeltaContinuesWhereItStopped() async throws {
    try await withPublisher { publisher, engine, dir in
      let v2 = Self.changed(Self.v1, at: [1 << 20, 4 << 20, 6 << 20], seed: 80)
      let index = try await publisher.publish(v2, version: "v2")
      let lastRange = try #require(try fetchedRanges(publisher, to: index).last)
      await publisher.origin.setHandler(
        "/model.bin", Self.rangeHandler(v2, cutAt: lastRange.lowerBound))

      let cut = await engine.refresh("model")
      #expect(cut.failure?.kind.isTransport == true, "\(cut)")
      #expect(keptPartial(dir), "what was assembled is kept")
      let before = await publisher.origin.requestCount(path: "/model.bin")

      #expect(await engine.refresh("model").isUpdated)
      #expect(await engine.status("model")?.sha256 == sha256Hex(v2))
      let again = await publisher.origin.requests(path: "/model.bin").dropFirst(before)
      let starts = again.compactMap { request in
        request.header("Range").flatMap {
          Int64($0.dropFirst("bytes=".count).split(separator: "-").first ?? "")
        }
      }
      #expect(starts.count == again.count, "no whole download")
      #expect(
        !starts.isEmpty && starts.allSatisfy { $0 >= lastRange.lowerBound },
        "only the cut range again: \(starts), cut at \(lastRange.lowerBound)")
    }
  }

  @Test func quittingMidDeltaKeepsWhatWasAssembledForTheNextStart() async throws {
    try await withPublisher { publisher, engine, dir in
      let v2 = Self.changed(Self.v1, at: [1 << 20, 4 << 20, 6 << 20], count: 256 << 10, seed: 90)
      try await publisher.publish(v2, version: "v2")
      // Ranges trickle (the copies do not): the delta is still running when the user quits.
      await publisher.origin.setResource(
        "/model.bin",
        StaticResource(
          data: v2, contentType: "application/octet-stream", bytesPerSecond: 128 << 10))
      let events = await engine.events()
      let transfer = Task { await engine.refresh("model") }
      _ = await firstEvent(in: events, timeout: .seconds(120)) {
        if case .progress(_, let p) = $0 { p.reusedBytes > 0 } else { false }
      }
      await engine.shutdown()
      let cut = await transfer.value
      #expect(cut.kind == .cancelled, "\(cut)")
      let kept = dir.cache.appendingPathComponent("tmp/model.resume.part")
      let keptBytes = try #require(
        try FileManager.default.attributesOfItem(atPath: kept.path)[.size] as? Int)
      #expect(keptBytes > 0, "what was assembled is kept")

      await publisher.origin.setResource(
        "/model.bin", body: v2, contentType: "application/octet-stream")
      let before = await publisher.origin.requestCount(path: "/model.bin")
      let asset = AssetDefinition(
        id: "model", remote: URL(string: "\(publisher.origin.baseURL)/model.bin"),
        maxBytes: 64 << 20, refresh: .manual, timeout: 30)
      try await withEngine(
        [asset], cache: dir.cache,
        manifest: URL(string: "\(publisher.origin.baseURL)/manifest.json")
      ) { second in
        #expect(await second.refresh("model").isUpdated)
        #expect(await second.status("model")?.sha256 == sha256Hex(v2))
      }
      let again = await publisher.origin.requests(path: "/model.bin").dropFirst(before)
      let spans = again.compactMap { request -> (Int, Int)? in
        guard let range = request.header("Range") else { return nil }
        let span = range.dropFirst("bytes=".count).split(separator: "-")
        guard span.count == 2, let a = Int(span[0]), let b = Int(span[1]) else { return nil }
        return (a, b)
      }
      #expect(spans.count == again.count && !spans.isEmpty, "ranges only, no whole download")
      #expect(
        spans.allSatisfy { $0.1 >= keptBytes },
        "nothing before the kept \(keptBytes) again: \(spans)")
    }
  }
}
