import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// Two engines on one cache folder, as two processes would be (each opens the lock file itself,
/// so `flock` separates them as it separates processes). The first engine's memory is left
/// behind on purpose (its scheduler, which would fold in the other's commits, is not running):
/// what it does must follow the entry on disk, never its stale view.
@Suite struct SharedCacheCommitTests {
  static func asset(_ id: String) -> AssetDefinition {
    AssetDefinition(id: id, remote: URL(string: "scripted://\(id)"), format: .text)
  }

  static func sha(_ text: String) -> String { sha256Hex(Data(text.utf8)) }

  /// Another process committed twice since this engine looked: the blob this engine remembers
  /// is gone, which is not damage, and the newer copy must not be discarded.
  @Test func verifyChecksTheCopyOnDiskAndNeverDiscardsANewerOne() async throws {
    try await withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      let mine = ScriptedFetcher()
      let theirs = ScriptedFetcher()
      try await withEngine([Self.asset("flags")], cache: dir.cache, fetchers: [mine]) { a in
        mine.set("v1", etag: "\"1\"")
        #expect(await a.refresh("flags").isUpdated)
        try await withEngine([Self.asset("flags")], cache: dir.cache, fetchers: [theirs]) { b in
          theirs.set("v2", etag: "\"2\"")
          #expect(await b.refresh("flags").isUpdated)
          theirs.set("v3", etag: "\"3\"")
          #expect(await b.refresh("flags").isUpdated)
        }
        #expect(!FileManager.default.fileExists(atPath: store.objectPath(Self.sha("v1"))))
        #expect(await a.verify() == [VerifyResult(id: "flags", checked: true, problem: nil)])
        let disk = try #require(try store.readEntry("flags"))
        #expect(disk.current?.sha256 == Self.sha("v3"))
        #expect(disk.lastError == nil)
      }
    }
  }

  /// The previous copy this engine remembers was pushed out by another process; the one the
  /// entry names now is there, intact, and is what a rollback goes back to.
  @Test func rollbackGoesBackToThePreviousCopyTheDiskNames() async throws {
    try await withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      let mine = ScriptedFetcher()
      let theirs = ScriptedFetcher()
      try await withEngine([Self.asset("flags")], cache: dir.cache, fetchers: [mine]) { a in
        mine.set("v1", etag: "\"1\"")
        #expect(await a.refresh("flags").isUpdated)
        mine.set("v2", etag: "\"2\"")
        #expect(await a.refresh("flags").isUpdated)
        try await withEngine([Self.asset("flags")], cache: dir.cache, fetchers: [theirs]) { b in
          theirs.set("v3", etag: "\"3\"")
          #expect(await b.refresh("flags").isUpdated)
        }
        try await a.rollback("flags")
        let disk = try #require(try store.readEntry("flags"))
        #expect(disk.current?.sha256 == Self.sha("v2"))
        #expect(disk.previous?.sha256 == Self.sha("v3"))
        #expect(try await a.data("flags") == Data("v2".utf8))
      }
    }
  }

  /// A blob is removed only when no entry on disk names it: another engine's asset with the
  /// same bytes keeps it through a drop and through a commit that pushes it out.
  @Test func aBlobAnotherEntryNamesSurvivesDropsAndCommits() async throws {
    try await withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      let mine = ScriptedFetcher()
      let theirs = ScriptedFetcher()
      try await withEngine([Self.asset("flags")], cache: dir.cache, fetchers: [mine]) { a in
        try await withEngine([Self.asset("other")], cache: dir.cache, fetchers: [theirs]) { b in
          mine.set("same", etag: "\"s\"")
          theirs.set("same", etag: "\"s\"")
          #expect(await a.refresh("flags").isUpdated)
          #expect(await b.refresh("other").isUpdated)
          // A commit that pushes the shared bytes out of flags (current, then previous).
          mine.set("next", etag: "\"n\"")
          #expect(await a.refresh("flags").isUpdated)
          mine.set("last", etag: "\"l\"")
          #expect(await a.refresh("flags").isUpdated)
          #expect(FileManager.default.fileExists(atPath: store.objectPath(Self.sha("same"))))
          #expect(FileManager.default.fileExists(atPath: store.objectPath(Self.sha("next"))))
          try await a.dropCache("flags")
          #expect(!FileManager.default.fileExists(atPath: store.objectPath(Self.sha("last"))))
          #expect(!FileManager.default.fileExists(atPath: store.objectPath(Self.sha("next"))))
          #expect(FileManager.default.fileExists(atPath: store.objectPath(Self.sha("same"))))
          #expect(await b.verify() == [VerifyResult(id: "other", checked: true, problem: nil)])
        }
      }
    }
  }

  /// Holds the commit lock as another process would, runs `body` (which starts the command and
  /// waits until it has hashed what it read without the lock), lets `change` rewrite the entry
  /// as that other process's commit, and releases the lock.
  static func whileHoldingTheLock(
    _ cache: URL, _ body: () async throws -> Void, change: () throws -> Void
  ) async throws {
    let fd = open(cache.appendingPathComponent(".lock").path, O_RDWR)
    #expect(fd >= 0)
    #expect(flock(fd, LOCK_EX) == 0)
    defer { close(fd) }  // releases the lock
    try await body()
    try change()
  }

  /// Polls (bounded) until the store has hashed more than `count` blobs.
  static func waitForHashes(_ store: CacheStore, beyond count: Int) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while store.hashes.count <= count, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(store.hashes.count > count)
  }

  /// An engine over a new cache that committed `v1` then `v2` of `flags` (so `previous` is
  /// `v1`), with a second `CacheStore` on the same folder standing for another process.
  static func withTwoGenerations(
    _ body: (TemporaryDirectory, CacheStore, AssetEngine) async throws -> Void
  ) async throws {
    try await withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      let mine = ScriptedFetcher()
      try await withEngine([Self.asset("flags")], cache: dir.cache, fetchers: [mine]) { a in
        mine.set("v1", etag: "\"1\"")
        #expect(await a.refresh("flags").isUpdated)
        mine.set("v2", etag: "\"2\"")
        #expect(await a.refresh("flags").isUpdated)
        try await body(dir, store, a)
      }
    }
  }

  /// Another process rolls the entry over while this rollback waits for the lock: it changes
  /// nothing and says so, instead of swapping the other process's generations.
  @Test func aRollbackWhoseEntryChangedMeanwhileChangesNothing() async throws {
    try await Self.withTwoGenerations { dir, store, a in
      let before = try #require(try store.readEntry("flags"))
      var theirs = before
      (theirs.current, theirs.previous) = (before.previous, before.current)
      let engineStore = a.store
      let hashed = engineStore.hashes.count
      let rollback = Task { try await a.rollback("flags") }
      try await Self.whileHoldingTheLock(dir.cache) {
        try await Self.waitForHashes(engineStore, beyond: hashed)
      } change: {
        try store.writeEntry(theirs)
      }
      let error = await #expect(throws: CommandError.self) { try await rollback.value }
      #expect(error?.message.contains("changed the cached copy meanwhile") == true)
      let after = try #require(try store.readEntry("flags"))
      #expect(after.current?.sha256 == Self.sha("v1"))
      #expect(after.previous?.sha256 == Self.sha("v2"))
    }
  }

  /// A copy is damaged; while `verify` waits for the lock to confirm it, another process
  /// commits a good copy. The good copy is kept (and checked), the damaged one was never it.
  @Test func verifyNeverDiscardsACopyCommittedWhileItWaitedForTheLock() async throws {
    try await Self.withTwoGenerations { dir, store, a in
      let fd = open(store.objectPath(Self.sha("v2")), O_WRONLY)
      #expect(pwrite(fd, "X", 1, 0) == 1)
      close(fd)
      let before = try #require(try store.readEntry("flags"))
      var theirs = before
      (theirs.current, theirs.previous) = (before.previous, nil)
      let engineStore = a.store
      let hashed = engineStore.hashes.count
      let verify = Task { await a.verify() }
      try await Self.whileHoldingTheLock(dir.cache) {
        try await Self.waitForHashes(engineStore, beyond: hashed)
      } change: {
        try store.writeEntry(theirs)
      }
      #expect(await verify.value == [VerifyResult(id: "flags", checked: true, problem: nil)])
      let after = try #require(try store.readEntry("flags"))
      #expect(after.current?.sha256 == Self.sha("v1"))
      #expect(after.lastError == nil)
    }
  }

  /// A start sets a damaged copy aside only over the entry it found damaged: an entry another
  /// process wrote meanwhile is left as it is.
  @Test func aConditionalEntryWriteLeavesANewerEntryAlone() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      var seen = CacheEntry(id: "flags", appVersion: "1")
      seen.consecutiveFailures = 1
      let seenOnDisk = try store.writeEntry(seen)
      var newer = seen
      newer.consecutiveFailures = 2
      try store.writeEntry(newer)
      var repair = seen
      repair.consecutiveFailures = 9
      #expect(try store.commitEntry(repair, over: seenOnDisk) == nil)
      #expect(try store.readEntry("flags")?.consecutiveFailures == 2)
      let current = try #require(try store.readEntry("flags"))
      #expect(try store.commitEntry(repair, over: current) != nil)
      #expect(try store.readEntry("flags")?.consecutiveFailures == 9)
    }
  }
}
