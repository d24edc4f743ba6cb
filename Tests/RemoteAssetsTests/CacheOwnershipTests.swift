import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// The cache folder is the engine's only when it says so: a marker, names it made, no links,
/// no loose permissions. Everything else is refused or left alone.
@Suite struct CacheOwnershipTests {
  let fm = FileManager.default

  func write(_ text: String, _ url: URL) throws {
    try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  func read(_ url: URL) -> String? {
    (try? Data(contentsOf: url)).map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func refusesANonEmptyFolderItDidNotMake() throws {
    try withTemporaryDirectory { dir in
      let work = dir.url.appendingPathComponent("h/tmp/work.txt")
      try write("w", work)
      let error = #expect(throws: CacheDirectoryError.self) {
        _ = try CacheStore(root: dir.url.appendingPathComponent("h"))
      }
      #expect(error?.problem.contains("not made by AssetWatch") == true)
      #expect(error?.problem.contains("tmp/work.txt") == true)
      #expect(read(work) == "w")
    }
  }

  @Test func refusesAFolderWithAStrangerAtItsRoot() throws {
    try withTemporaryDirectory { dir in
      let notes = dir.url.appendingPathComponent("h/notes.md")
      try write("mine", notes)
      #expect(throws: CacheDirectoryError.self) {
        _ = try CacheStore(root: dir.url.appendingPathComponent("h"))
      }
      #expect(read(notes) == "mine")
    }
  }

  @Test func adoptsALayoutMadeByAnEarlierReleaseWithoutLosingIt() throws {
    try withTemporaryDirectory { dir in
      let root = dir.url.appendingPathComponent("old")
      let sha = String(repeating: "ab", count: 32)
      try write("{}", root.appendingPathComponent("entries/flags.json"))
      try write("blob", root.appendingPathComponent("objects/\(sha)"))
      try write("", root.appendingPathComponent(".lock"))
      try write("{}", root.appendingPathComponent("manifest.json"))
      let store = try CacheStore(root: root)
      #expect(store.adopted)
      #expect(
        read(root.appendingPathComponent("CACHEDIR.TAG"))?.hasPrefix(
          "Signature: 8a477f597d28d172789f06886806bc55") == true)
      #expect(read(root.appendingPathComponent("objects/\(sha)")) == "blob")
      #expect(read(root.appendingPathComponent("entries/flags.json")) == "{}")
      // Once marked, a second open is not an adoption.
      #expect(try CacheStore(root: root).adopted == false)
    }
  }

  @Test func anEmptyFolderIsClaimed() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.url)
      #expect(!store.adopted)
      #expect(fm.fileExists(atPath: dir.url.appendingPathComponent("CACHEDIR.TAG").path))
    }
  }

  @Test func theSweepLeavesNamesItDoesNotRecogniseInAnOwnedCache() async throws {
    try await withTemporaryDirectory { dir in
      let cache = dir.cache
      _ = try CacheStore(root: cache)
      let strangers = [
        "tmp/notes.txt", "objects/README", "entries/keep.me", "tmp/flags.part", "objects/ABCDEF",
      ]
      for name in strangers { try write("x", cache.appendingPathComponent(name)) }
      // Names the engine makes and nobody uses go.
      let orphanPart = cache.appendingPathComponent("tmp/flags.123.part")
      let orphanBlob = cache.appendingPathComponent("objects/\(String(repeating: "0", count: 64))")
      let entryTemp = cache.appendingPathComponent("entries/flags.json.77.tmp")
      for url in [orphanPart, orphanBlob, entryTemp] { try write("x", url) }

      try await withEngine(
        [AssetDefinition(id: "flags", remote: nil, bundled: .bytes(Data("{}".utf8)))], cache: cache,
        fetchers: []
      ) { _ in }
      for name in strangers { #expect(read(cache.appendingPathComponent(name)) == "x", "\(name)") }
      for url in [orphanPart, orphanBlob, entryTemp] {
        #expect(!fm.fileExists(atPath: url.path), "\(url.lastPathComponent)")
      }
    }
  }

  @Test func refusesARootThatIsASymlink() throws {
    try withTemporaryDirectory { dir in
      let real = dir.url.appendingPathComponent("real")
      try fm.createDirectory(at: real, withIntermediateDirectories: true)
      let link = dir.url.appendingPathComponent("link")
      try fm.createSymbolicLink(at: link, withDestinationURL: real)
      let error = #expect(throws: CacheDirectoryError.self) { _ = try CacheStore(root: link) }
      #expect(error?.problem.contains("symbolic link") == true)
      #expect(try fm.contentsOfDirectory(atPath: real.path).isEmpty)
    }
  }

  @Test(arguments: ["tmp", "objects", "entries"])
  func refusesASubfolderThatIsASymlink(_ name: String) throws {
    try withTemporaryDirectory { dir in
      let cache = dir.cache
      _ = try CacheStore(root: cache)
      let victim = dir.url.appendingPathComponent("victim")
      try write("precious", victim.appendingPathComponent("file.part"))
      try fm.removeItem(at: cache.appendingPathComponent(name))
      try fm.createSymbolicLink(
        at: cache.appendingPathComponent(name), withDestinationURL: victim)
      let error = #expect(throws: CacheDirectoryError.self) { _ = try CacheStore(root: cache) }
      #expect(error?.path.hasSuffix("/\(name)") == true)
      #expect(read(victim.appendingPathComponent("file.part")) == "precious")
    }
  }

  @Test func refusesAFolderOthersMayWrite() throws {
    try withTemporaryDirectory { dir in
      let cache = dir.cache
      _ = try CacheStore(root: cache)
      chmod(cache.path, 0o777)
      let error = #expect(throws: CacheDirectoryError.self) { _ = try CacheStore(root: cache) }
      #expect(error?.problem.contains("chmod go-w '\(cache.path)'") == true)
      chmod(cache.path, 0o700)
      chmod(cache.appendingPathComponent("objects").path, 0o775)
      let sub = #expect(throws: CacheDirectoryError.self) { _ = try CacheStore(root: cache) }
      #expect(sub?.problem.contains("chmod go-w") == true)
    }
  }

  @Test func createsFoldersOwnerOnly() throws {
    try withTemporaryDirectory { dir in
      let cache = dir.cache
      _ = try CacheStore(root: cache)
      for name in ["", "tmp", "objects", "entries"] {
        let attributes = try fm.attributesOfItem(atPath: cache.appendingPathComponent(name).path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700, "\(name)")
      }
      let lock = try fm.attributesOfItem(atPath: cache.appendingPathComponent(".lock").path)
      #expect((lock[.posixPermissions] as? Int) == 0o600)
    }
  }

  @Test func aCacheThatCannotBeCreatedServesBundledCopies() async throws {
    // /proc refuses new folders: the engine starts read-only with no cache and serves bundled.
    let asset = AssetDefinition(
      id: "flags", remote: nil, bundled: .bytes(Data(#"{"b":1}"#.utf8)), format: .json)
    try await withEngine([asset], cache: URL(fileURLWithPath: "/proc/aw-no-cache/c")) {
      engine throws in
      #expect(try await engine.data("flags") == Data(#"{"b":1}"#.utf8))
      #expect(await engine.info().cacheReadOnly != nil)
    }
  }
}
