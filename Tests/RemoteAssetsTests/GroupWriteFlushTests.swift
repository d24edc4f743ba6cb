import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// A commit's entry files and `objects/` are flushed in one wave of fsyncs
/// (`DirectoryHandle.writeGroup(_:flushing:before:absent:)`): an entry that names a moved blob
/// is put in place only once `objects/` is durable; the others go in either way. Each case runs
/// with temp files and renames, and with the names known free (`absent`): unnamed files linked
/// in.
@Suite struct GroupWriteFlushTests {
  let files: [(data: Data, name: String)] = [
    (Data("{\"a\":1}".utf8), "a.json"), (Data("{\"b\":2}".utf8), "b.json"),
  ]

  @Test(arguments: [Set<Int>(), [0, 1]])
  func bothGoInWhenTheFolderIsDurable(absent: Set<Int>) throws {
    try withFolders { dir, entries, objects throws in
      let (failures, flushFailure) = entries.writeGroup(
        files, flushing: objects, before: [1], absent: absent)
      #expect(flushFailure == nil)
      #expect(failures.map { $0 == nil } == [true, true])
      #expect(try names(dir.path) == ["a.json", "b.json", "objects"])
      #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/b.json")) == files[1].data)
      #expect(entries.unnamedLinks.count == absent.count)
    }
  }

  /// A name said to be free but taken (a file another writer put there): replaced whole, by
  /// a temp name renamed over it, as if it had not been said free.
  @Test func aNameTakenAfterAllIsReplaced() throws {
    try withFolders { dir, entries, objects throws in
      try Data("old".utf8).write(to: URL(fileURLWithPath: dir.path + "/a.json"))
      let (failures, _) = entries.writeGroup(files, flushing: objects, before: [], absent: [0, 1])
      #expect(failures.map { $0 == nil } == [true, true])
      #expect(try names(dir.path) == ["a.json", "b.json", "objects"])
      #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/a.json")) == files[0].data)
      #expect(entries.unnamedLinks.count == 2, "b linked; a linked as a temp, then renamed")
    }
  }

  /// `objects/`'s descriptor is made a pipe's, whose fsync fails (EINVAL): the entry that
  /// depends on it stays out, with the flush's error, and leaves no temp; the other goes in.
  @Test(arguments: [Set<Int>(), [0, 1]])
  func aFailedFolderFlushKeepsItsDependentsOut(absent: Set<Int>) throws {
    try withFolders { dir, entries, objects throws in
      var ends: [Int32] = [0, 0]
      try #require(pipe(&ends) == 0)
      // Replaced in place (never closed here): the handle closes its descriptor itself.
      try #require(dup2(ends[0], objects.fd) == objects.fd)
      close(ends[0])
      close(ends[1])
      let (failures, flushFailure) = entries.writeGroup(
        files, flushing: objects, before: [1], absent: absent)
      #expect(flushFailure?.operation == "fsync")
      #expect(failures[0] == nil)
      #expect(failures[1]?.operation == "fsync")
      #expect(try names(dir.path) == ["a.json", "objects"])
    }
  }

  /// A folder for the entries with `objects/` in it, both open.
  func withFolders(
    _ body: (TemporaryDirectory, DirectoryHandle, DirectoryHandle) throws -> Void
  ) throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createDirectory(
        atPath: dir.path + "/objects", withIntermediateDirectories: false)
      try body(
        dir, try DirectoryHandle.open(path: dir.path),
        try DirectoryHandle.open(path: dir.path + "/objects"))
    }
  }

  func names(_ path: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
  }
}
