import AssetWatchTestKit
import Crypto
import DemoOrigin
import Foundation
import Logging
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// Degraded but serving: failed commits, impossible resumes, tampered blobs, orphans, manual
/// assets, FIFOs, held locks and slow neighbours never cost the last good copy or hang.
@Suite struct DegradedServingTests {
  let fm = FileManager.default

  func sha(_ data: Data) -> String { SHA256.hash(data: data).hexString }

  @Test func aFailedEntryWriteServesNothingUncommittedAndKeepsTheError() async throws {
    try await withOrigin { origin in
      await origin.setResource(
        "/a.json", body: Data(#"{"v":2}"#.utf8), contentType: "application/json")
      try await withTemporaryDirectory { dir in
        let cache = dir.cache
        let asset = AssetDefinition(
          id: "a", remote: URL(string: "\(origin.baseURL)/a.json"),
          bundled: .bytes(Data(#"{"v":1}"#.utf8)), format: .json, timeout: 30)
        try await withEngine([asset], cache: cache) { engine in
          // The blob can be committed but the entry cannot replace a folder at its name: the rename
          // that is the commit point fails.
          try fm.createDirectory(
            at: cache.appendingPathComponent("entries/a.json"), withIntermediateDirectories: true)
          let outcome = await engine.refresh("a")
          #expect(outcome.failure?.kind == .storage, "\(outcome)")
          let status = try #require(await engine.status("a"))
          #expect(status.source == .bundled)
          #expect(status.lastError?.kind == .storage)
          #expect(try await engine.data("a") == Data(#"{"v":1}"#.utf8))
        }
      }
    }
  }

  @Test func a416IsCompleteOnlyWhenSizeOrHashProveIt() async throws {
    let body = patternedData(megabytes: 1, period: 61)
    try await withOrigin { origin in
      // Any Range request: "416, you already have everything" (a lie: it claims the length held).
      await origin.setHandler("/a.bin") { request in
        if let range = request.header("Range"), range.hasPrefix("bytes=") {
          let held = range.dropFirst(6).dropLast()
          return OriginResponse(
            status: 416, headers: [OriginHeader("Content-Range", "bytes */\(held)")])
        }
        return OriginResponse(headers: [OriginHeader("ETag", "\"v1\"")], body: .data(body))
      }
      try await withTemporaryDirectory { dir in
        let cache = dir.cache
        let asset = AssetDefinition(
          id: "a", remote: URL(string: "\(origin.baseURL)/a.bin"), format: .binary, timeout: 30)
        let store = try CacheStore(root: cache)
        // A kept partial of 300 KiB of those bytes, with a record that vouches for it.
        let prefix = body.prefix(300 << 10)
        try prefix.write(to: cache.appendingPathComponent("tmp/a.resume.part"))
        let record = ResumeRecord(
          url: asset.remote!.absoluteString, etag: "\"v1\"", bytes: Int64(prefix.count),
          total: Int64(body.count), prefixSHA256: sha(prefix))
        try JSONEncoder().encode(record).write(
          to: cache.appendingPathComponent("tmp/a.resume.json"))
        _ = store
        try await withEngine([asset], cache: cache) { engine throws in
          let outcome = await engine.refresh("a")
          #expect(outcome.isUpdated, "\(outcome)")
          // Not the 300 KiB the 416 claimed complete: the whole body, fetched again without a Range.
          #expect(try await engine.data("a") == body)
          let requests = await origin.requests(path: "/a.bin")
          #expect(requests.count == 2)
          #expect(requests.first?.header("Range") != nil)
          #expect(requests.last?.header("Range") == nil)
        }
      }
    }
  }

  @Test func assetsAddedByTheManifestAreVerifiedAtStart() async throws {
    try await withOrigin { origin in
      let extra = Data("extra bytes v1".utf8)
      let manifest = """
        {"version":"m1","assets":[{"id":"extra","url":"/extra.bin","sha256":"\(sha(extra))","size":\(extra.count),"version":"e1"}]}
        """
      await origin.setResource(
        "/manifest.json", body: Data(manifest.utf8), contentType: "application/json")
      await origin.setResource("/extra.bin", body: extra, contentType: "application/octet-stream")
      try await withTemporaryDirectory { dir in
        let cache = dir.cache
        let manifestURL = URL(string: "\(origin.baseURL)/manifest.json")!
        try await withEngine([], cache: cache, manifest: manifestURL) { seed in
          let results = await seed.refreshAll()
          #expect(results.first { $0.id == "extra" }?.outcome.isUpdated == true, "\(results)")
        }
        // Same size, other bytes: a blob tampered with on disk.
        let blob = cache.appendingPathComponent("objects/\(sha(extra))")
        try Data("EXTRA BYTES V1".utf8).write(to: blob)
        try await withEngine([], cache: cache, fetchers: [], manifest: manifestURL) { engine in
          let status = try #require(await engine.status("extra"))
          #expect(status.source == .none)
          #expect(status.lastError?.kind == .corrupt)
          await #expect(throws: (any Error).self) { try await engine.data("extra") }
        }
      }
    }
  }

  @Test func orphanedResumePartialsAreReclaimedAndLiveOnesKept() async throws {
    try await withTemporaryDirectory { dir in
      let cache = dir.cache
      _ = try CacheStore(root: cache)
      let tmp = cache.appendingPathComponent("tmp")
      // Left by a SIGKILL during a resumed download of an older release: a part, no record.
      try Data(repeating: 1, count: 1000).write(to: tmp.appendingPathComponent("a.resume.part"))
      // A record whose part is gone.
      try Data("{}".utf8).write(to: tmp.appendingPathComponent("b.resume.json"))
      // A complete pair for a configured asset: kept for its Range request.
      try Data(repeating: 2, count: 1000).write(to: tmp.appendingPathComponent("c.resume.part"))
      try Data("{}".utf8).write(to: tmp.appendingPathComponent("c.resume.json"))
      // A complete pair for an asset no longer configured: nobody will resume it.
      try Data(repeating: 3, count: 1000).write(to: tmp.appendingPathComponent("gone.resume.part"))
      try Data("{}".utf8).write(to: tmp.appendingPathComponent("gone.resume.json"))
      let assets = ["a", "b", "c"].map { AssetDefinition(id: $0, remote: nil) }
      try await withEngine(assets, cache: cache, fetchers: []) { _ in }
      let left = Set(try fm.contentsOfDirectory(atPath: tmp.path))
      #expect(left == ["c.resume.part", "c.resume.json"])
    }
  }

  @Test func manualMeansManualAfterARetryableFailure() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/a.json") { _ in .text("busy", status: 503) }
      try await withTemporaryDirectory { dir in
        let clock = ManualClock(now: Date())
        let asset = AssetDefinition(
          id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json, refresh: .manual,
          timeout: 30)
        try await withEngine([asset], cache: dir.url.appendingPathComponent("c"), clock: clock) {
          engine in
          #expect(await engine.refresh("a").failure?.status == 503)
          #expect(await engine.status("a")?.nextAttemptAt == nil)
          await engine.startAutoRefresh()
          clock.advance(by: 3600)
          await engine.tick()
          await engine.stopAutoRefresh()
          #expect(await origin.requestCount(path: "/a.json") == 1)
        }
      }
    }
  }

  @Test func aFIFORemoteIsRefusedAtOnce() async throws {
    try await withTemporaryDirectory { dir in
      let fifo = dir.url.appendingPathComponent("pipe.json")
      #expect(mkfifo(fifo.path, 0o600) == 0)
      let asset = AssetDefinition(
        id: "a", remote: fifo, bundled: .bytes(Data("{}".utf8)), format: .json)
      try await withEngine([asset], cache: dir.url.appendingPathComponent("c")) { engine throws in
        let outcome = await engine.refresh("a")
        #expect(outcome.failure?.message.contains("not a regular file") == true, "\(outcome)")
        #expect(try await engine.data("a") == Data("{}".utf8))
      }
    }
  }

  @Test func essentialAssetsNeverQueueBehindSlowOnes() async throws {
    try await withOrigin { origin in
      // Four slow optional assets that hold every regular transfer slot.
      await origin.setHandler("/slow") { _ in
        OriginResponse(body: .data(Data(count: 64)), delayBeforeHead: .seconds(60))
      }
      await origin.setResource(
        "/config.json", body: Data("{}".utf8), contentType: "application/json")
      try await withTemporaryDirectory { dir in
        var assets = (0..<4).map {
          AssetDefinition(
            id: "slow\($0)", remote: URL(string: "\(origin.baseURL)/slow"), format: .binary,
            timeout: 120)
        }
        assets.append(
          AssetDefinition(
            id: "config", remote: URL(string: "\(origin.baseURL)/config.json"), format: .json,
            essential: true, timeout: 30))
        try await withEngine(assets, cache: dir.url.appendingPathComponent("c")) { engine in
          for i in 0..<4 { await engine.startRefresh("slow\(i)", manual: true) }
          await origin.waitForRequests(path: "/slow", count: 4)
          #expect(await engine.refresh("config").isUpdated)
        }
      }
    }
  }

  @Test func aHeldLockFailsACommitInBoundedTimeNamingTheHolder() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a.json", body: Data("[1]".utf8), contentType: "application/json")
      try await withTemporaryDirectory { dir in
        let cache = dir.url.appendingPathComponent("c")
        let asset = AssetDefinition(
          id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json, timeout: 30)
        _ = try CacheStore(root: cache)
        // Another holder (a separate open file description conflicts even in this process).
        let fd = open(cache.appendingPathComponent(".lock").path, O_RDWR)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        let note = "4242 otherapp\n"
        _ = note.withCString { pwrite(fd, $0, strlen($0), 0) }
        // The engine's start skips the sweep rather than waiting for the lock.
        try await withEngine(
          [asset], cache: cache, configure: { $0.lockTimeout = .milliseconds(300) }
        ) { engine in
          let outcome = await engine.refresh("a")
          #expect(outcome.failure?.kind == .storage)
          #expect(
            outcome.failure?.message.contains("process 4242 (otherapp)") == true, "\(outcome)")
        }
      }
    }
  }
}
