import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Two processes starting the same download at once: neither takes the other's partial's name,
/// and what is moved into `objects/` or removed by name is always the file this process wrote.
@Suite struct PartialFileNameTests {
  /// A partial of `bytes` bytes, written and named.
  static func partial(_ store: CacheStore, _ bytes: Int, fill: UInt8) throws -> PartialFile {
    let partial = try store.createPartial(for: "model")
    let data = [UInt8](repeating: fill, count: bytes)
    try data.withUnsafeBytes { try partial.write($0) }
    return partial
  }

  @Test func aCheckpointNeverTakesTheNameOfAnotherProcesssKeptPartial() throws {
    try withTemporaryDirectory { directory in
      let store = try CacheStore(root: directory.cache)
      let tmp = try #require(store.tmpFolder)
      let journal = ResumeJournal(folder: tmp, id: "model", url: "http://127.0.0.1/model.bin")
      let first = try Self.partial(store, 300 << 10, fill: 1)
      let second = try Self.partial(store, 300 << 10, fill: 2)
      #expect(journal.checkpoint(first, etag: "\"v1\"", total: nil))
      #expect(first.name == journal.partName)
      // The second transfer finds the name taken: it is not made resumable, and renames nothing.
      #expect(!journal.checkpoint(second, etag: "\"v1\"", total: nil))
      #expect(second.name != journal.partName)
      let kept = try Data(
        contentsOf: directory.cache.appendingPathComponent("tmp/model.resume.part"))
      #expect(kept.first == 1 && kept.count == 300 << 10, "the first's bytes stay under the name")
    }
  }

  @Test func anExclusiveRenameRefusesAnExistingName() throws {
    try withTemporaryDirectory { directory in
      let store = try CacheStore(root: directory.cache)
      let tmp = try #require(store.tmpFolder)
      let taken = try Self.partial(store, 10, fill: 3)
      try taken.rename(to: "model.resume.part")
      let other = try Self.partial(store, 10, fill: 4)
      #expect(throws: StorageError.self) { try other.renameExclusively(to: "model.resume.part") }
      try other.renameExclusively(to: "model.free.part")
      #expect(other.name == "model.free.part")
      #expect(tmp.names("model.resume.part", descriptor: try taken.descriptor()))
    }
  }

  /// If another file took the partial's name anyway, the commit refuses to move it into
  /// `objects/` (its bytes are not the ones hashed) and a discard leaves it to its owner.
  @Test func aNameTakenByAnotherFileIsNeitherCommittedNorRemoved() throws {
    try withTemporaryDirectory { directory in
      var store = try CacheStore(root: directory.cache)
      store.unnamedPartials = false
      let mine = try Self.partial(store, 100, fill: 5)
      let theirs = directory.cache.appendingPathComponent("tmp/" + mine.name)
      // Another process's file now answers to the name (renamed over it).
      let elsewhere = directory.cache.appendingPathComponent("tmp/other.part")
      try Data(repeating: 6, count: 50).write(to: elsewhere)
      #expect(rename(elsewhere.path, theirs.path) == 0)
      #expect(!mine.isStillNamed)
      let sha = String(repeating: "a", count: 64)
      #expect(throws: StorageError.self) { _ = try store.moveBlob(mine, sha256: sha) }
      #expect(!FileManager.default.fileExists(atPath: store.objectPath(sha)))
      mine.discard()
      #expect(try Data(contentsOf: theirs).count == 50, "their file stays")
    }
  }

  /// The look the engine makes on its actor before going off it to take a kept partial: "none"
  /// only when no record is there; with one, `take()` decides (and here continues it).
  @Test func aRecordIsLookedForBeforeItIsTaken() throws {
    try withTemporaryDirectory { directory in
      let store = try CacheStore(root: directory.cache)
      let tmp = try #require(store.tmpFolder)
      let journal = ResumeJournal(folder: tmp, id: "model", url: "http://127.0.0.1/model.bin")
      #expect(!journal.mayHoldRecord)
      #expect(journal.take() == nil)
      let partial = try Self.partial(store, 300 << 10, fill: 1)
      #expect(journal.checkpoint(partial, etag: "\"v1\"", total: nil))
      #expect(journal.mayHoldRecord)
      partial.close()  // this transfer let go of it (its lock too): the next may continue it
      let taken = try #require(journal.take())
      #expect(taken.etag == "\"v1\"")
      taken.partial.discard()
      journal.invalidate()
      #expect(!journal.mayHoldRecord)
    }
  }
}
