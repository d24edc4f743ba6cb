import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// A `file://` asset replaced by another file of the same size and modification time (`mv` of a
/// file extracted by tar, or built with `SOURCE_DATE_EPOCH`) is seen as new.
@Suite struct FileReplacementTests {
  @Test func aFileRenamedOverWithTheSameSizeAndModificationTimeIsFetched() async throws {
    try await withTemporaryDirectory { dir in
      let v1 = Data(#"{"v": 1}"#.utf8)
      let v2 = Data(#"{"v": 2}"#.utf8)
      let source = try dir.file("src/asset.json", v1)
      let asset = AssetDefinition(id: "a", remote: source, format: .json)
      try await withEngine([asset], cache: dir.cache) { engine throws in
        #expect(await engine.refresh("a").isUpdated)
        var old = stat()
        try #require(stat(source.path, &old) == 0)
        let next = try dir.file("src/asset.json.new", v2)
        var times = [old.st_atim, old.st_mtim]
        try #require(utimensat(AT_FDCWD, next.path, &times, 0) == 0)
        try #require(rename(next.path, source.path) == 0)
        var new = stat()
        try #require(stat(source.path, &new) == 0)
        // What the old ETag was made of is unchanged.
        #expect(new.st_size == old.st_size)
        #expect(new.st_mtim.tv_sec == old.st_mtim.tv_sec)
        #expect(new.st_mtim.tv_nsec == old.st_mtim.tv_nsec)
        let outcome = await engine.refresh("a")
        #expect(outcome.isUpdated, "\(outcome)")
        #expect(try await engine.data("a") == v2)
        // And once read, the new file is unchanged.
        #expect(await engine.refresh("a") == .notModified)
      }
    }
  }
}
