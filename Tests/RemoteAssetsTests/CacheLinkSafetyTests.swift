import DemoOrigin
import Foundation
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// A link or a hard link planted in the cache is never written through.
@Suite struct CacheLinkSafetyTests {
  let fm = FileManager.default

  /// An origin serving `body` at /a.bin, an asset for it, and a cache folder the engine made.
  struct Setup {
    let origin: LoopbackOrigin
    let dir: TempDir
    let cache: URL
    let asset: AssetDefinition
    let victim: URL

    static func make(body: Data = Data("new bytes".utf8)) async throws -> Setup {
      let origin = try await LoopbackOrigin.start()
      await origin.setResource("/a.bin", body: body, contentType: "application/octet-stream")
      let dir = TempDir()
      let cache = dir.url.appendingPathComponent("cache")
      _ = try CacheStore(root: cache)
      let victim = dir.url.appendingPathComponent("victim.txt")
      try Data("precious".utf8).write(to: victim)
      let asset = AssetDefinition(
        id: "a", remote: URL(string: "\(origin.baseURL)/a.bin"), format: .binary, timeout: 30)
      return Setup(origin: origin, dir: dir, cache: cache, asset: asset, victim: victim)
    }

    func plantLink(_ name: String) throws {
      try FileManager.default.createSymbolicLink(
        at: cache.appendingPathComponent(name), withDestinationURL: victim)
    }

    var victimText: String? {
      (try? Data(contentsOf: victim)).map { String(decoding: $0, as: UTF8.self) }
    }

    func close() async {
      try? await origin.shutdown()
      dir.remove()
    }
  }

  @Test(arguments: ["entries/a.json.tmp", "manifest.json.tmp", "entries/a.json"])
  func aCommitNeverWritesThroughAPlantedLink(_ name: String) async throws {
    let s = try await Setup.make()
    defer { Task { await s.close() } }
    try s.plantLink(name)
    let engine = try makeEngine([s.asset], cache: s.cache)
    await engine.start()
    let outcome = await engine.refresh("a")
    await engine.shutdown()
    #expect(s.victimText == "precious")
    if name == "entries/a.json" {
      // A link at the entry itself is unreadable metadata: the commit replaces the link.
      #expect(outcome.isUpdated)
      let info = try fm.attributesOfItem(atPath: s.cache.appendingPathComponent(name).path)
      #expect(info[.type] as? FileAttributeType == .typeRegular)
    } else {
      #expect(outcome.isUpdated, "\(outcome)")
    }
  }

  @Test func aLockThatIsALinkIsRefused() async throws {
    let s = try await Setup.make()
    defer { Task { await s.close() } }
    try fm.removeItem(at: s.cache.appendingPathComponent(".lock"))
    try s.plantLink(".lock")
    #expect(throws: CacheDirectoryError.self) { _ = try CacheStore(root: s.cache) }
    #expect(s.victimText == "precious")
  }

  @Test func aForgedResumeRecordWithALinkedPartialIsNotWrittenThrough() async throws {
    let s = try await Setup.make(body: patternedData(megabytes: 1, period: 97))
    defer { Task { await s.close() } }
    // A kept partial that is a link to the victim, and a record inviting a resume after 300 KiB.
    try s.plantLink("tmp/a.resume.part")
    let record = ResumeRecord(
      url: s.asset.remote!.absoluteString, etag: "\"forged\"", bytes: 300 << 10, total: 1 << 20)
    try JSONEncoder().encode(record).write(to: s.cache.appendingPathComponent("tmp/a.resume.json"))
    let engine = try makeEngine([s.asset], cache: s.cache)
    await engine.start()
    let outcome = await engine.refresh("a")
    await engine.shutdown()
    #expect(outcome.isUpdated, "\(outcome)")
    #expect(s.victimText == "precious")
  }

  @Test func aHardLinkedPartialIsNotResumed() async throws {
    let s = try await Setup.make(body: patternedData(megabytes: 1, period: 89))
    defer { Task { await s.close() } }
    let big = Data(repeating: 7, count: 400 << 10)
    try big.write(to: s.victim)
    #expect(link(s.victim.path, s.cache.appendingPathComponent("tmp/a.resume.part").path) == 0)
    let record = ResumeRecord(
      url: s.asset.remote!.absoluteString, etag: "\"forged\"", bytes: 300 << 10, total: 1 << 20)
    try JSONEncoder().encode(record).write(to: s.cache.appendingPathComponent("tmp/a.resume.json"))
    let engine = try makeEngine([s.asset], cache: s.cache)
    await engine.start()
    let outcome = await engine.refresh("a")
    await engine.shutdown()
    #expect(outcome.isUpdated, "\(outcome)")
    #expect(try Data(contentsOf: s.victim) == big)
    // A plain GET: nothing was resumed from the planted file.
    #expect(await s.origin.requests(path: "/a.bin").allSatisfy { $0.header("Range") == nil })
  }

  @Test func filesAreOwnerOnlyWhateverTheUmask() async throws {
    let s = try await Setup.make()
    defer { Task { await s.close() } }
    let engine = try makeEngine([s.asset], cache: s.cache)
    await engine.start()
    #expect(await engine.refresh("a").isUpdated)
    let sha = try #require(await engine.status("a")?.sha256)
    await engine.shutdown()
    for name in ["entries/a.json", "objects/\(sha)", "CACHEDIR.TAG"] {
      let info = try fm.attributesOfItem(atPath: s.cache.appendingPathComponent(name).path)
      #expect((info[.posixPermissions] as? Int) == 0o600, "\(name)")
    }
  }
}
