import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Start-up from disk: offline, corrupt entries, truncated blobs, app version changes.
@Suite struct CacheStoreTests {
  /// Fills `dir.cache` with one committed copy of `body` and returns the cache and the asset.
  func populatedCache(
    _ dir: TemporaryDirectory, body: Data = Data(#"{"cached": true}"#.utf8)
  ) async throws -> (URL, AssetDefinition) {
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "fixed://x"),
      bundled: .bytes(Data(#"{"bundled": true}"#.utf8)), format: .json)
    try await withEngine([asset], cache: dir.cache, fetchers: [FixedFetcher(body: body)]) {
      engine in
      #expect(await engine.refresh("flags").isUpdated)
    }
    return (dir.cache, asset)
  }

  @Test func offlineStartServesLastGoodCopy() async throws {
    try await withTemporaryDirectory { dir in
      let (cache, asset) = try await populatedCache(dir)
      // A remote nobody listens on: start must not need it.
      var offline = asset
      offline.remote = URL(string: "http://127.0.0.1:9/flags.json")
      try await withEngine([offline], cache: cache) { engine throws in
        #expect(try await engine.data("flags") == Data(#"{"cached": true}"#.utf8))
        #expect(await engine.status("flags")?.source == .cached)
        let outcome = await engine.refresh("flags")
        #expect(outcome.failure?.kind == .refused)
        #expect(try await engine.data("flags") == Data(#"{"cached": true}"#.utf8))
      }
    }
  }

  @Test func offlineStartWithoutCacheServesBundled() async throws {
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "http://127.0.0.1:9/flags.json"),
      bundled: .bytes(Data("[1]".utf8)), format: .json)
    try await withEngine([asset]) { engine, _ throws in
      #expect(try await engine.data("flags") == Data("[1]".utf8))
      #expect(await engine.status("flags")?.state(at: Date()) == .bundled)
    }
  }

  @Test func corruptEntryFallsBackToBundledWithReason() async throws {
    try await withTemporaryDirectory { dir in
      let (cache, asset) = try await populatedCache(dir)
      try Data("{not json".utf8).write(to: cache.appendingPathComponent("entries/flags.json"))
      try await withEngine([asset], cache: cache, fetchers: []) { engine in
        let status = try #require(await engine.status("flags"))
        #expect(status.source == .bundled)
        #expect(status.lastError?.kind == .corrupt)
        #expect(try await engine.data("flags") == Data(#"{"bundled": true}"#.utf8))
      }
    }
  }

  /// Replaces the cache's only blob with `bytes`, as a disk fault or a crash would.
  func damageTheBlob(in cache: URL, with bytes: Data) throws {
    let objects = cache.appendingPathComponent("objects")
    let blobs = try FileManager.default.contentsOfDirectory(atPath: objects.path)
    try bytes.write(to: objects.appendingPathComponent(try #require(blobs.first)))
  }

  @Test func truncatedBlobFallsBackToBundled() async throws {
    try await withTemporaryDirectory { dir in
      let (cache, asset) = try await populatedCache(dir)
      try damageTheBlob(in: cache, with: Data(#"{"cach"#.utf8))
      let status = try #require(try await statusAfterOfflineStart(asset, cache: cache))
      #expect(status.source == .bundled)
      #expect(status.lastError?.message.contains("bytes") == true)
    }
  }

  @Test func blobWithWrongHashFallsBackToBundled() async throws {
    try await withTemporaryDirectory { dir in
      let (cache, asset) = try await populatedCache(dir)
      try damageTheBlob(in: cache, with: Data(#"{"cached": nope}"#.utf8))  // same size
      let status = try #require(try await statusAfterOfflineStart(asset, cache: cache))
      #expect(status.source == .bundled)
      #expect(status.lastError?.message.contains("SHA-256") == true)
    }
  }

  @Test func newAppVersionResetsToBundledEvenWhenEntryIsCorrupt() async throws {
    try await withTemporaryDirectory { dir in
      let (cache, asset) = try await populatedCache(dir)
      try await withEngine([asset], cache: cache, appVersion: "2.0.0", fetchers: []) { upgraded in
        #expect(await upgraded.status("flags")?.source == .bundled)
        #expect(await upgraded.status("flags")?.state(at: Date()) == .bundled)
      }

      let (cache2, _) = try await populatedCache(dir)
      try Data("garbage".utf8).write(to: cache2.appendingPathComponent("entries/flags.json"))
      try await withEngine([asset], cache: cache2, appVersion: "3.0.0", fetchers: []) {
        again throws in
        #expect(try await again.data("flags") == Data(#"{"bundled": true}"#.utf8))
      }
    }
  }

  @Test func sweepRemovesStalePartialsAndUnreferencedBlobs() async throws {
    try await withTemporaryDirectory { dir in
      let (cache, asset) = try await populatedCache(dir)
      let stale = cache.appendingPathComponent("tmp/flags.123.part")
      let orphan = cache.appendingPathComponent("objects/" + String(repeating: "ab", count: 32))
      try Data("x".utf8).write(to: stale)
      try Data("y".utf8).write(to: orphan)
      try await withEngine([asset], cache: cache, fetchers: []) { engine in
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        #expect(await engine.status("flags")?.source == .cached)
      }
    }
  }

  @Test func idsCannotEscapeTheCache() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.url)
      for bad in ["../x", "a/b", ".hidden", "..", "", "A"] {
        #expect(throws: StorageError.self) { _ = try store.readEntry(bad) }
        #expect(store.entryPath(bad) == nil)
        #expect(throws: StorageError.self) { _ = try store.createPartial(for: bad) }
      }
      #expect(store.entryPath("ok-id.1")?.hasSuffix("/entries/ok-id.1.json") == true)
    }
  }
}

/// Two processes on one cache (a dashboard and the CLI): each follows what the other committed.
@Suite struct SharedCacheTests {
  @Test func aDropByAnotherProcessIsNotUndoneAndIsPickedUp() async throws {
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"v": 1}"#, etag: "\"1\"")
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "scripted://flags"), bundled: .bytes(Data("{}".utf8)),
      format: .json)
    try await withEngine([asset], fetchers: [fetcher]) { dashboard, dir in
      #expect(await dashboard.refresh("flags").isUpdated)

      // The CLI, another engine on the same cache, drops the cached copy.
      try await withEngine([asset], cache: dir.cache, fetchers: [fetcher]) { cli in
        try await cli.dropCache("flags")
      }

      // The dashboard's next write (a failed check) must not resurrect the dropped copy...
      fetcher.set("{broken", etag: "\"2\"")
      #expect(await dashboard.refresh("flags").failure?.kind == .invalid)
      #expect(await dashboard.status("flags")?.source == .bundled)
      #expect(try await dashboard.data("flags") == Data("{}".utf8))
      // ...and a third process sees the same thing.
      try await withEngine([asset], cache: dir.cache, fetchers: []) { other in
        #expect(await other.status("flags")?.source == .bundled)
      }
    }
  }

  @Test func aCommitByAnotherProcessShowsUpWhileRunning() async throws {
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"v": 1}"#, etag: "\"1\"")
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "scripted://flags"), bundled: .bytes(Data("{}".utf8)),
      format: .json, refresh: .manual)
    try await withEngine([asset], fetchers: [fetcher]) { dashboard, dir in
      let events = await dashboard.events()
      await dashboard.startAutoRefresh()

      let committed = try await withEngine([asset], cache: dir.cache, fetchers: [fetcher]) { cli in
        #expect(await cli.refresh("flags").isUpdated)
        return try #require(await cli.status("flags")?.sha256)
      }

      let seen = await firstEvent(in: events) {
        if case .assetChanged(let s) = $0 { s.sha256 == committed } else { false }
      }
      #expect(seen != nil, "the running engine picks up the other process's commit")
      #expect(try await dashboard.data("flags") == Data(#"{"v": 1}"#.utf8))
    }
  }
}

extension SharedCacheTests {
  @Test func ownWritesAreNotMistakenForAnotherProcess() async throws {
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"v": 1}"#, etag: "\"1\"")
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "scripted://flags"), format: .json, refresh: .manual)
    try await withEngine([asset], fetchers: [fetcher]) { engine, _ in
      #expect(await engine.refresh("flags").isUpdated)
      #expect(await engine.refresh("flags") == .notModified)
      let epochBefore = await engine.core.records["flags"]?.epoch
      await engine.reloadExternalChanges()
      #expect(
        await engine.core.records["flags"]?.epoch == epochBefore, "no change was seen on disk")
    }
  }
}

/// A start trusts a blob whose commit stamp still matches; anything that touched the file is
/// checked in full, and `verify` always reads.
@Suite struct BlobStampTests {
  func populated(_ dir: TemporaryDirectory) async throws -> (URL, AssetDefinition, URL) {
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "fixed://x"),
      bundled: .bytes(Data(#"{"bundled": true}"#.utf8)), format: .json)
    let body = Data(#"{"cached": 1234567}"#.utf8)
    let path = try await withEngine(
      [asset], cache: dir.cache, fetchers: [FixedFetcher(body: body)]
    ) { engine in
      #expect(await engine.refresh("flags").isUpdated)
      return try #require(await engine.status("flags")?.path)
    }
    return (dir.cache, asset, URL(fileURLWithPath: path))
  }

  @Test func anUntouchedBlobIsNotReadAtStart() async throws {
    try await withTemporaryDirectory { dir in
      let (cache, asset, _) = try await populated(dir)
      try await withEngine([asset], cache: cache, fetchers: []) { engine in
        #expect(await engine.status("flags")?.source == .cached)
        #expect(await engine.store.hashes.count == 0)
      }
    }
  }

  @Test func aBlobRewrittenInPlaceIsCheckedAndRefused() async throws {
    try await withTemporaryDirectory { dir in
      let (cache, asset, blob) = try await populated(dir)
      // Same inode, same size, other bytes (the ctime moves; nobody can set it back).
      let fd = open(blob.path, O_WRONLY)
      #expect(fd >= 0)
      let evil = Array(#"{"cached": 7654321}"#.utf8)
      #expect(pwrite(fd, evil, evil.count, 0) == evil.count)
      close(fd)
      try await withEngine([asset], cache: cache, fetchers: []) { engine in
        #expect(await engine.store.hashes.count == 1)
        let status = try #require(await engine.status("flags"))
        #expect(status.source == .bundled)
        #expect(status.lastError?.kind == .corrupt)
      }
    }
  }

  @Test func verifyReadsEveryByteAndDiscardsADamagedCopy() async throws {
    try await withTemporaryDirectory { dir in
      let (cache, asset, blob) = try await populated(dir)
      try await withEngine([asset], cache: cache, fetchers: []) { engine throws in
        #expect(await engine.verify() == [VerifyResult(id: "flags", checked: true, problem: nil)])
        // Damaged after the start trusted it.
        let fd = open(blob.path, O_WRONLY)
        _ = pwrite(fd, "X", 1, 0)
        close(fd)
        let results = await engine.verify(["flags"])
        #expect(results.first?.problem?.contains("SHA-256") == true)
        #expect(await engine.status("flags")?.source == .bundled)
        #expect(try await engine.data("flags") == Data(#"{"bundled": true}"#.utf8))
      }
    }
  }
}

/// The sweep takes an entry file unchanged since this process read it (same stamp) at its word
/// instead of reading it again, and reads one another process rewrote.
@Suite struct SweepEntryIndexTests {
  static func blob(_ letter: Character, in store: CacheStore, _ dir: TemporaryDirectory) throws
    -> Generation
  {
    let sha = String(repeating: letter, count: 64)
    let objects = dir.cache.appendingPathComponent("objects")
    #expect(
      FileManager.default.createFile(
        atPath: objects.appendingPathComponent(sha).path, contents: Data("x".utf8)))
    return Generation(sha256: sha, size: 1, fetchedAt: Date(timeIntervalSince1970: 0))
  }

  @Test func aBlobNamedByAnotherProcessAfterTheLoadIsKept() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      let old = try Self.blob("a", in: store, dir)
      let new = try Self.blob("b", in: store, dir)
      var entry = CacheEntry(id: "flags", appVersion: "1")
      entry.current = old
      try store.writeEntry(entry)
      // This process loads the entry (as a start does) ...
      _ = DiskLoad.read("flags", bundled: nil, store: store)
      #expect(
        store.entryBlobs.blobs(of: "flags.json", stamp: try #require(store.entryStamp("flags")))
          == [old.sha256])
      // ... another process moves it to the new blob ...
      let other = try CacheStore(root: dir.cache)
      entry.current = new
      try other.writeEntry(entry)
      // ... and the sweep, keeping nothing of its own, keeps what the disk names now.
      _ = try #require(try store.sweepWhenFree(keep: []))
      let objects = dir.cache.appendingPathComponent("objects")
      #expect(
        FileManager.default.fileExists(atPath: objects.appendingPathComponent(new.sha256).path))
      #expect(
        !FileManager.default.fileExists(atPath: objects.appendingPathComponent(old.sha256).path))
      // The entry unchanged since: known by its stamp, the same answer.
      _ = try #require(try store.sweepWhenFree(keep: []))
      #expect(
        FileManager.default.fileExists(atPath: objects.appendingPathComponent(new.sha256).path))
    }
  }
}

/// An entry read with its stamp (one open, one `fstat`, as a start of thousands does): the stamp
/// is the file's as a look by name sees it, it changes when the entry is rewritten, and a file
/// that is there but unusable still has one (a later look then notices its repair).
@Suite struct StampedEntryReadTests {
  @Test func theStampIsTheFilesAndFollowsARewrite() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      let missing = store.readStampedEntry("flags")
      #expect(try missing.entry.get() == nil)
      #expect(missing.stamp == nil)

      var entry = CacheEntry(id: "flags", appVersion: "1")
      try store.writeEntry(entry)
      let first = store.readStampedEntry("flags")
      #expect(try first.entry.get()?.appVersion == "1")
      #expect(first.stamp != nil)
      #expect(first.stamp == store.entryStamp("flags"))

      entry.appVersion = "2"
      try store.writeEntry(entry)
      let second = store.readStampedEntry("flags")
      #expect(try second.entry.get()?.appVersion == "2")
      #expect(second.stamp == store.entryStamp("flags"))
      #expect(second.stamp != first.stamp)
    }
  }

  @Test func anUnusableEntryFailsWithAStamp() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      let file = dir.cache.appendingPathComponent("entries/flags.json")
      #expect(FileManager.default.createFile(atPath: file.path, contents: Data("{broken".utf8)))
      let read = store.readStampedEntry("flags")
      #expect(throws: (any Error).self) { try read.entry.get() }
      #expect(read.stamp != nil)
      #expect(read.stamp == store.entryStamp("flags"))
      #expect(throws: (any Error).self) { try store.readEntry("flags") }
    }
  }

  /// The budget's measure takes the entries' sizes from the sweep's own looks: the total it
  /// reports is still every byte the cache's files hold.
  @Test func theSweepsMeasureIsTheCachesSize() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      for i in 0..<5 {
        let blob = try SweepEntryIndexTests.blob(Character("\(i)"), in: store, dir)
        var entry = CacheEntry(id: "a\(i)", appVersion: String(repeating: "v", count: i * 40))
        entry.current = blob
        try store.writeEntry(entry)
        _ = DiskLoad.read("a\(i)", bundled: nil, store: store)
      }
      let report = try #require(
        try store.sweepWhenFree(keep: [], budget: .init(limit: nil, configured: nil)))
      let measured = try #require(report.budget).bytesBefore
      #expect(measured == store.measure())
      var onDisk: Int64 = 0
      for folder in ["entries", "objects"] {
        let url = dir.cache.appendingPathComponent(folder)
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
          let size =
            try FileManager.default.attributesOfItem(
              atPath: url.appendingPathComponent(name).path)[.size] as? NSNumber
          onDisk += size?.int64Value ?? 0
        }
      }
      #expect(measured >= onDisk)
      #expect(onDisk > 0)
    }
  }
}

/// A measure of the cache looks at `objects/`'s files it has not seen (by name and inode): a
/// file renamed into place is looked at, one cut in place keeps the size seen, one removed is
/// forgotten.
@Suite struct ObjectSizeIndexTests {
  @Test func aMeasureLooksOnlyAtFilesItHasNotSeen() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      let objects = dir.cache.appendingPathComponent("objects")
      let sha = String(repeating: "a", count: 64)
      let blob = objects.appendingPathComponent(sha)
      #expect(FileManager.default.createFile(atPath: blob.path, contents: Data("x".utf8)))
      let first = store.measure()
      #expect(store.objectSizes.count == 1)

      // Cut in place (the inode stays): not looked at again, the size seen stands.
      let handle = try FileHandle(forWritingTo: blob)
      try handle.truncate(atOffset: 0)
      try handle.close()
      #expect(store.measure() == first)

      // Replaced by a rename, as every writer of the cache does: another inode, looked at.
      let temp = objects.appendingPathComponent(sha + ".1.tmp")
      #expect(FileManager.default.createFile(atPath: temp.path, contents: Data("12345".utf8)))
      #expect(rename(temp.path, blob.path) == 0)
      #expect(store.measure() == first + 4)

      // A blob whose stamp a load took is known without a look too: cut in place after the
      // load, it still counts the size the load saw.
      let other = String(repeating: "b", count: 64)
      let otherURL = objects.appendingPathComponent(other)
      #expect(FileManager.default.createFile(atPath: otherURL.path, contents: Data("yy".utf8)))
      #expect(store.blobFileStamp(other)?.size == 2)
      #expect(store.objectSizes.count == 2)
      let otherHandle = try FileHandle(forWritingTo: otherURL)
      try otherHandle.truncate(atOffset: 0)
      try otherHandle.close()
      #expect(store.measure() == first + 6)

      // A chunk index is looked at every time (a new chunking may rewrite it at another size).
      let index = objects.appendingPathComponent(other + ".chunks")
      #expect(FileManager.default.createFile(atPath: index.path, contents: Data("abc".utf8)))
      #expect(store.measure() == first + 9)
      #expect(store.objectSizes.count == 2)
      try FileManager.default.removeItem(at: index)

      // Removed: forgotten.
      try FileManager.default.removeItem(at: blob)
      #expect(store.measure() == first + 1)
      #expect(store.objectSizes.count == 1)
    }
  }
}
