import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// A commit's entry files and `objects/` are flushed in one wave of fsyncs
/// (`DirectoryHandle.writeGroup(_:flushing:before:)`): an entry that names a moved blob is
/// renamed into place only once `objects/` is durable; the others go in either way.
@Suite struct GroupWriteFlushTests {
  let files: [(data: Data, name: String)] = [
    (Data("{\"a\":1}".utf8), "a.json"), (Data("{\"b\":2}".utf8), "b.json"),
  ]

  @Test func bothAreRenamedWhenTheFolderIsDurable() throws {
    try withFolders { dir, entries, objects throws in
      let (failures, flushFailure) = entries.writeGroup(files, flushing: objects, before: [1])
      #expect(flushFailure == nil)
      #expect(failures.map { $0 == nil } == [true, true])
      #expect(try names(dir.path) == ["a.json", "b.json", "objects"])
    }
  }

  /// `objects/`'s descriptor is made a pipe's, whose fsync fails (EINVAL): the entry that
  /// depends on it stays out, with the flush's error, and leaves no temp; the other goes in.
  @Test func aFailedFolderFlushKeepsItsDependentsOut() throws {
    try withFolders { dir, entries, objects throws in
      var ends: [Int32] = [0, 0]
      try #require(pipe(&ends) == 0)
      // Replaced in place (never closed here): the handle closes its descriptor itself.
      try #require(dup2(ends[0], objects.fd) == objects.fd)
      close(ends[0])
      close(ends[1])
      let (failures, flushFailure) = entries.writeGroup(files, flushing: objects, before: [1])
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
