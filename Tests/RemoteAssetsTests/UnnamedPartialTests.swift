import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// A download of an asset is written into a file without a name (`O_TMPFILE`) and named only
/// where it stays: in `objects/` by its commit, or under its resume name in `tmp/`.
@Suite struct UnnamedPartialTests {
  static func names(_ folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
  }

  /// A partial with `bytes` written (unnamed: this test machine's file systems allow it).
  static func written(_ store: CacheStore, _ bytes: [UInt8]) throws -> PartialFile {
    let partial = try store.createPartial(for: "a")
    try bytes.withUnsafeBytes { try partial.write($0) }
    try #require(partial.isUnnamed, "tmp/ allows unnamed files here")
    return partial
  }

  @Test func aDownloadHasNoNameUntilItsCommitLinksItIntoObjects() throws {
    try withTemporaryDirectory { directory in
      let store = try CacheStore(root: directory.cache)
      let bytes = [UInt8](repeating: 7, count: 5000)
      let partial = try Self.written(store, bytes)
      #expect(Self.names(directory.cache.appendingPathComponent("tmp")).isEmpty)
      let sha = partial.hashOfWritten()
      let stamp = try store.moveBlob(partial, sha256: sha)
      partial.markMoved()
      #expect(try Data(contentsOf: URL(fileURLWithPath: store.objectPath(sha))) == Data(bytes))
      #expect(stamp == store.blobFileStamp(sha), "the stamp is the linked file's")
      #expect(Self.names(directory.cache.appendingPathComponent("tmp")).isEmpty)
    }
  }

  /// The same name in `objects/` already (here a damaged copy): replaced whole, as a named
  /// partial's rename replaces it, and nothing is left in `tmp/`.
  @Test func aBlobAlreadyThereIsReplaced() throws {
    try withTemporaryDirectory { directory in
      let store = try CacheStore(root: directory.cache)
      let bytes = [UInt8](repeating: 9, count: 300)
      let partial = try Self.written(store, bytes)
      let sha = partial.hashOfWritten()
      try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: store.objectPath(sha)))
      _ = try store.moveBlob(partial, sha256: sha)
      partial.markMoved()
      #expect(try Data(contentsOf: URL(fileURLWithPath: store.objectPath(sha))) == Data(bytes))
      #expect(Self.names(directory.cache.appendingPathComponent("tmp")).isEmpty)
      #expect(Self.names(directory.cache.appendingPathComponent("objects")) == [sha])
    }
  }

  /// Kept for a resume, it gets its resume name, locked as a named partial is while open.
  @Test func aKeptPartialIsNamedAndLocked() throws {
    try withTemporaryDirectory { directory in
      let store = try CacheStore(root: directory.cache)
      let tmp = try #require(store.tmpFolder)
      let journal = ResumeJournal(folder: tmp, id: "a", url: "http://127.0.0.1/a.bin")
      let partial = try Self.written(store, [UInt8](repeating: 3, count: 300 << 10))
      #expect(journal.checkpoint(partial, etag: "\"v1\"", total: nil))
      #expect(!partial.isUnnamed)
      let path = directory.cache.appendingPathComponent("tmp/" + journal.partName).path
      #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 300 << 10)
      let other = open(path, O_RDONLY)
      try #require(other >= 0)
      defer { close(other) }
      #expect(flock(other, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
      partial.close()
    }
  }

  @Test func aDiscardedDownloadLeavesNothing() throws {
    try withTemporaryDirectory { directory in
      let store = try CacheStore(root: directory.cache)
      let partial = try Self.written(store, [1, 2, 3])
      partial.discard()
      for folder in ["tmp", "objects", "entries"] {
        #expect(Self.names(directory.cache.appendingPathComponent(folder)).isEmpty)
      }
    }
  }

  /// Where unnamed files cannot be made (sysfs here), the folder says so once and is not
  /// asked again; a partial there would be a named one.
  @Test func aFolderThatRefusesThemIsNotAskedAgain() throws {
    #if os(Linux)
      let folder = try DirectoryHandle.open(path: "/sys")
      #expect(folder.createUnnamed(probeName: { "probe.1.part" }) == nil)
      #expect(folder.refusedUnnamed)
      #expect(folder.createUnnamed(probeName: { "probe.1.part" }) == nil)
    #endif
  }
}

/// The cache's measure (its gauge, and `cacheLimit`'s budget) counts a download under way though
/// no listing of `tmp/` shows it: its bytes as they are written, by its name once it has one,
/// and nothing once it is gone.
@Suite struct UnnamedPartialMeasureTests {
  @Test func aDownloadWithoutANameIsCountedAsItIsWritten() throws {
    try withTemporaryDirectory { directory in
      let store = try CacheStore(root: directory.cache)
      let before = store.measure()
      let partial = try UnnamedPartialTests.written(store, [UInt8](repeating: 3, count: 7000))
      #expect(store.measure() == before + 7000)
      try [UInt8](repeating: 4, count: 1000).withUnsafeBytes { try partial.write($0) }
      #expect(store.measure() == before + 8000)
      // Named for a resume: the listing finds it, and it is counted once.
      try partial.renameExclusively(to: "a.resume.part")
      #expect(
        UnnamedPartialTests.names(directory.cache.appendingPathComponent("tmp")) == [
          "a.resume.part"
        ])
      #expect(store.measure() == before + 8000)
      partial.discard()
      #expect(store.measure() == before)
    }
  }

  @Test func aDownloadEmptiedOrDroppedCountsNothing() throws {
    try withTemporaryDirectory { directory in
      let store = try CacheStore(root: directory.cache)
      let before = store.measure()
      let reset = try UnnamedPartialTests.written(store, [UInt8](repeating: 5, count: 4096))
      let dropped = try UnnamedPartialTests.written(store, [UInt8](repeating: 6, count: 512))
      #expect(store.measure() == before + 4096 + 512)
      try reset.reset()  // a server answered 200 to a resume: the file starts again
      #expect(store.measure() == before + 512)
      dropped.discard()
      #expect(store.measure() == before)
      // Committed: counted once, as the blob in `objects/`.
      try [UInt8](repeating: 7, count: 100).withUnsafeBytes { try reset.write($0) }
      _ = try store.moveBlob(reset, sha256: reset.hashOfWritten())
      reset.markMoved()
      #expect(store.measure() == before + 100)
    }
  }
}

/// Through the engine from a real origin: a first download's blob and entry are both linked in
/// unnamed; its update's entry replaces the file there by rename.
@Suite struct UnnamedCommitTests {
  @Test func aFirstDownloadLinksItsBlobAndEntryAndAnUpdateRenames() async throws {
    try await withOrigin { origin in
      await origin.setResource(
        "/a.json", body: Data(#"{"v":1}"#.utf8), contentType: "application/json")
      let asset = AssetDefinition(
        id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json, timeout: 30)
      try await withEngine([asset]) { engine, _ in
        #expect(await engine.refresh("a").isUpdated)
        let objects = try #require(engine.store.objectsFolder)
        let entries = try #require(engine.store.entriesFolder)
        #expect(objects.unnamedLinks.count == 1)
        #expect(entries.unnamedLinks.count == 1)
        await origin.setResource(
          "/a.json", body: Data(#"{"v":2}"#.utf8), contentType: "application/json")
        #expect(await engine.refresh("a").isUpdated)
        #expect(objects.unnamedLinks.count == 2)
        #expect(entries.unnamedLinks.count == 1, "the entry was there: renamed over")
        #expect(try await engine.data("a") == Data(#"{"v":2}"#.utf8))
      }
    }
  }
}
