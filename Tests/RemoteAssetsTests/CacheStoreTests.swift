import Crypto
import Foundation
import Testing

@testable import RemoteAssets

/// Start-up from disk: offline, corrupt entries, truncated blobs, app version changes.
@Suite struct CacheStoreTests {
  static func sha256(_ data: Data) -> String { SHA256.hash(data: data).hexString }

  /// A fetcher that serves fixed bytes, for populating a cache without a server.
  struct FixedFetcher: AssetFetcher {
    var body: Data
    func canFetch(_ url: URL) -> Bool { url.scheme == "fixed" }
    func fetch(_ request: FetchRequest, into sink: DownloadSink) async throws -> FetchResponse {
      try sink.write(body)
      return .downloaded(FetchMetadata(etag: "\"e1\""))
    }
  }

  func populatedCache(_ dir: TempDir, body: Data = Data(#"{"cached": true}"#.utf8)) async throws
    -> (URL, AssetDefinition)
  {
    let cache = dir.url.appendingPathComponent("cache")
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "fixed://x"),
      bundled: .bytes(Data(#"{"bundled": true}"#.utf8)), format: .json)
    let engine = try makeEngine([asset], cache: cache, fetchers: [FixedFetcher(body: body)])
    await engine.start()
    #expect(await engine.refresh("flags").isUpdated)
    await engine.shutdown()
    return (cache, asset)
  }

  @Test func offlineStartServesLastGoodCopy() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let (cache, asset) = try await populatedCache(dir)
    // A remote nobody listens on: start must not need it.
    var offline = asset
    offline.remote = URL(string: "http://127.0.0.1:9/flags.json")
    let engine = try makeEngine([offline], cache: cache)
    await engine.start()
    #expect(try await engine.data("flags") == Data(#"{"cached": true}"#.utf8))
    #expect(await engine.status("flags")?.source == .cached)
    let outcome = await engine.refresh("flags")
    #expect(outcome.failure?.kind == .network)
    #expect(try await engine.data("flags") == Data(#"{"cached": true}"#.utf8))
    await engine.shutdown()
  }

  @Test func offlineStartWithoutCacheServesBundled() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "http://127.0.0.1:9/flags.json"),
      bundled: .bytes(Data("[1]".utf8)), format: .json)
    let engine = try makeEngine([asset], cache: dir.url)
    await engine.start()
    #expect(try await engine.data("flags") == Data("[1]".utf8))
    #expect(await engine.status("flags")?.state(at: Date()) == .bundled)
    await engine.shutdown()
  }

  @Test func corruptEntryFallsBackToBundledWithReason() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let (cache, asset) = try await populatedCache(dir)
    try Data("{not json".utf8).write(to: cache.appendingPathComponent("entries/flags.json"))
    let engine = try makeEngine([asset], cache: cache, fetchers: [])
    await engine.start()
    let status = try #require(await engine.status("flags"))
    #expect(status.source == .bundled)
    #expect(status.lastError?.kind == "corrupt")
    #expect(try await engine.data("flags") == Data(#"{"bundled": true}"#.utf8))
    await engine.shutdown()
  }

  /// Replaces the cache's only blob with `bytes`, as a disk fault or a crash would.
  func damageTheBlob(in cache: URL, with bytes: Data) throws {
    let objects = cache.appendingPathComponent("objects")
    let blobs = try FileManager.default.contentsOfDirectory(atPath: objects.path)
    try bytes.write(to: objects.appendingPathComponent(try #require(blobs.first)))
  }

  @Test func truncatedBlobFallsBackToBundled() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let (cache, asset) = try await populatedCache(dir)
    try damageTheBlob(in: cache, with: Data(#"{"cach"#.utf8))
    let status = try #require(try await statusAfterOfflineStart(asset, cache: cache))
    #expect(status.source == .bundled)
    #expect(status.lastError?.message.contains("bytes") == true)
  }

  @Test func blobWithWrongHashFallsBackToBundled() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let (cache, asset) = try await populatedCache(dir)
    try damageTheBlob(in: cache, with: Data(#"{"cached": nope}"#.utf8))  // same size
    let status = try #require(try await statusAfterOfflineStart(asset, cache: cache))
    #expect(status.source == .bundled)
    #expect(status.lastError?.message.contains("SHA-256") == true)
  }

  @Test func newAppVersionResetsToBundledEvenWhenEntryIsCorrupt() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let (cache, asset) = try await populatedCache(dir)
    let upgraded = try makeEngine([asset], cache: cache, appVersion: "2.0.0", fetchers: [])
    await upgraded.start()
    #expect(await upgraded.status("flags")?.source == .bundled)
    #expect(await upgraded.status("flags")?.state(at: Date()) == .bundled)
    await upgraded.shutdown()

    let (cache2, _) = try await populatedCache(dir)
    try Data("garbage".utf8).write(to: cache2.appendingPathComponent("entries/flags.json"))
    let again = try makeEngine([asset], cache: cache2, appVersion: "3.0.0", fetchers: [])
    await again.start()
    #expect(try await again.data("flags") == Data(#"{"bundled": true}"#.utf8))
    await again.shutdown()
  }

  @Test func sweepRemovesStalePartialsAndUnreferencedBlobs() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let (cache, asset) = try await populatedCache(dir)
    let stale = cache.appendingPathComponent("tmp/flags.123.part")
    let orphan = cache.appendingPathComponent("objects/" + String(repeating: "ab", count: 32))
    try Data("x".utf8).write(to: stale)
    try Data("y".utf8).write(to: orphan)
    let engine = try makeEngine([asset], cache: cache, fetchers: [])
    await engine.start()
    #expect(!FileManager.default.fileExists(atPath: stale.path))
    #expect(!FileManager.default.fileExists(atPath: orphan.path))
    #expect(await engine.status("flags")?.source == .cached)
    await engine.shutdown()
  }

  @Test func idsCannotEscapeTheCache() throws {
    let dir = TempDir()
    defer { dir.remove() }
    let store = try CacheStore(root: dir.url)
    for bad in ["../x", "a/b", ".hidden", "..", "", "A"] {
      #expect(throws: StorageError.self) { _ = try store.readEntry(bad) }
      #expect(store.entryPath(bad) == nil)
      #expect(throws: StorageError.self) { _ = try store.createPartial(for: bad) }
    }
    #expect(store.entryPath("ok-id.1")?.hasSuffix("/entries/ok-id.1.json") == true)
  }
}

/// Two processes on one cache (a dashboard and the CLI): each follows what the other committed.
@Suite struct SharedCacheTests {
  @Test func aDropByAnotherProcessIsNotUndoneAndIsPickedUp() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"v": 1}"#, etag: "\"1\"")
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "scripted://flags"), bundled: .bytes(Data("{}".utf8)),
      format: .json)
    let dashboard = try makeEngine([asset], cache: dir.url, fetchers: [fetcher])
    await dashboard.start()
    #expect(await dashboard.refresh("flags").isUpdated)

    // The CLI, another engine on the same cache, drops the cached copy.
    let cli = try makeEngine([asset], cache: dir.url, fetchers: [fetcher])
    await cli.start()
    try await cli.dropCache("flags")
    await cli.shutdown()

    // The dashboard's next write (a failed check) must not resurrect the dropped copy...
    fetcher.set("{broken", etag: "\"2\"")
    #expect(await dashboard.refresh("flags").failure?.kind == .validation)
    #expect(await dashboard.status("flags")?.source == .bundled)
    #expect(try await dashboard.data("flags") == Data("{}".utf8))
    // ...and a third process sees the same thing.
    let other = try makeEngine([asset], cache: dir.url, fetchers: [])
    await other.start()
    #expect(await other.status("flags")?.source == .bundled)
    await other.shutdown()
    await dashboard.shutdown()
  }

  @Test func aCommitByAnotherProcessShowsUpWhileRunning() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"v": 1}"#, etag: "\"1\"")
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "scripted://flags"), bundled: .bytes(Data("{}".utf8)),
      format: .json, refresh: .manual)
    let dashboard = try makeEngine([asset], cache: dir.url, fetchers: [fetcher])
    await dashboard.start()
    let events = await dashboard.events()
    await dashboard.startAutoRefresh()

    let cli = try makeEngine([asset], cache: dir.url, fetchers: [fetcher])
    await cli.start()
    #expect(await cli.refresh("flags").isUpdated)
    let committed = try #require(await cli.status("flags")?.sha256)
    await cli.shutdown()

    let seen = await firstEvent(in: events) {
      if case .assetChanged(let s) = $0 { s.sha256 == committed } else { false }
    }
    #expect(seen != nil, "the running engine picks up the other process's commit")
    #expect(try await dashboard.data("flags") == Data(#"{"v": 1}"#.utf8))
    await dashboard.shutdown()
  }
}

extension SharedCacheTests {
  @Test func ownWritesAreNotMistakenForAnotherProcess() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"v": 1}"#, etag: "\"1\"")
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "scripted://flags"), format: .json, refresh: .manual)
    let engine = try makeEngine([asset], cache: dir.url, fetchers: [fetcher])
    await engine.start()
    #expect(await engine.refresh("flags").isUpdated)
    #expect(await engine.refresh("flags") == .notModified)
    let epochBefore = await engine.records["flags"]?.epoch
    await engine.reloadExternalChanges()
    #expect(await engine.records["flags"]?.epoch == epochBefore, "no change was seen on disk")
    await engine.shutdown()
  }
}

/// A start trusts a blob whose commit stamp still matches; anything that touched the file is
/// checked in full, and `verify` always reads.
@Suite struct BlobStampTests {
  func populated(_ dir: TempDir) async throws -> (URL, AssetDefinition, URL) {
    let cache = dir.url.appendingPathComponent("cache")
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "fixed://x"),
      bundled: .bytes(Data(#"{"bundled": true}"#.utf8)), format: .json)
    let body = Data(#"{"cached": 1234567}"#.utf8)
    let engine = try makeEngine(
      [asset], cache: cache, fetchers: [CacheStoreTests.FixedFetcher(body: body)])
    await engine.start()
    #expect(await engine.refresh("flags").isUpdated)
    let path = try #require(await engine.status("flags")?.path)
    await engine.shutdown()
    return (cache, asset, URL(fileURLWithPath: path))
  }

  @Test func anUntouchedBlobIsNotReadAtStart() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let (cache, asset, _) = try await populated(dir)
    let engine = try makeEngine([asset], cache: cache, fetchers: [])
    await engine.start()
    #expect(await engine.status("flags")?.source == .cached)
    #expect(await engine.store.hashes.count == 0)
    await engine.shutdown()
  }

  @Test func aBlobRewrittenInPlaceIsCheckedAndRefused() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let (cache, asset, blob) = try await populated(dir)
    // Same inode, same size, other bytes (the ctime moves; nobody can set it back).
    let fd = open(blob.path, O_WRONLY)
    #expect(fd >= 0)
    let evil = Array(#"{"cached": 7654321}"#.utf8)
    #expect(pwrite(fd, evil, evil.count, 0) == evil.count)
    close(fd)
    let engine = try makeEngine([asset], cache: cache, fetchers: [])
    await engine.start()
    #expect(await engine.store.hashes.count == 1)
    let status = try #require(await engine.status("flags"))
    #expect(status.source == .bundled)
    #expect(status.lastError?.kind == "corrupt")
    await engine.shutdown()
  }

  @Test func verifyReadsEveryByteAndDiscardsADamagedCopy() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let (cache, asset, blob) = try await populated(dir)
    let engine = try makeEngine([asset], cache: cache, fetchers: [])
    await engine.start()
    #expect(await engine.verify() == [VerifyResult(id: "flags", checked: true, problem: nil)])
    // Damaged after the start trusted it.
    let fd = open(blob.path, O_WRONLY)
    _ = pwrite(fd, "X", 1, 0)
    close(fd)
    let results = await engine.verify(["flags"])
    #expect(results.first?.problem?.contains("SHA-256") == true)
    #expect(await engine.status("flags")?.source == .bundled)
    #expect(try await engine.data("flags") == Data(#"{"bundled": true}"#.utf8))
    await engine.shutdown()
  }
}
