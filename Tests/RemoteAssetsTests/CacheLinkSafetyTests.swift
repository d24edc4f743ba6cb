import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
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
    let cache: URL
    let asset: AssetDefinition
    let victim: URL

    /// Runs `body` with a setup, then shuts the origin down and removes the folder, also when
    /// `body` throws.
    static func with(
      body: Data = Data("new bytes".utf8), _ test: (Setup) async throws -> Void
    ) async throws {
      try await withOrigin { origin in
        await origin.setResource("/a.bin", body: body, contentType: "application/octet-stream")
        try await withTemporaryDirectory { dir in
          let cache = dir.cache
          _ = try CacheStore(root: cache)
          let victim = dir.url.appendingPathComponent("victim.txt")
          try Data("precious".utf8).write(to: victim)
          let asset = AssetDefinition(
            id: "a", remote: URL(string: "\(origin.baseURL)/a.bin"), format: .binary, timeout: 30)
          try await test(Setup(origin: origin, cache: cache, asset: asset, victim: victim))
        }
      }
    }

    func plantLink(_ name: String) throws {
      try FileManager.default.createSymbolicLink(
        at: cache.appendingPathComponent(name), withDestinationURL: victim)
    }

    var victimText: String? {
      (try? Data(contentsOf: victim)).map { String(decoding: $0, as: UTF8.self) }
    }
  }

  @Test(arguments: ["entries/a.json.tmp", "manifest.json.tmp", "entries/a.json"])
  func aCommitNeverWritesThroughAPlantedLink(_ name: String) async throws {
    try await Setup.with { s in
      try s.plantLink(name)
      let outcome = try await withEngine([s.asset], cache: s.cache) { engine in
        await engine.refresh("a")
      }
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
  }

  @Test func aLockThatIsALinkIsRefused() async throws {
    try await Setup.with { s in
      try fm.removeItem(at: s.cache.appendingPathComponent(".lock"))
      try s.plantLink(".lock")
      #expect(throws: CacheDirectoryError.self) { _ = try CacheStore(root: s.cache) }
      #expect(s.victimText == "precious")
    }
  }

  @Test func aForgedResumeRecordWithALinkedPartialIsNotWrittenThrough() async throws {
    try await Setup.with(body: patternedData(megabytes: 1, period: 97)) { s in
      // A kept partial that is a link to the victim, and a record inviting a resume after 300 KiB.
      try s.plantLink("tmp/a.resume.part")
      let record = ResumeRecord(
        url: s.asset.remote!.absoluteString, etag: "\"forged\"", bytes: 300 << 10, total: 1 << 20)
      try JSONEncoder().encode(record).write(
        to: s.cache.appendingPathComponent("tmp/a.resume.json"))
      let outcome = try await withEngine([s.asset], cache: s.cache) { engine in
        await engine.refresh("a")
      }
      #expect(outcome.isUpdated, "\(outcome)")
      #expect(s.victimText == "precious")
    }
  }

  @Test func aHardLinkedPartialIsNotResumed() async throws {
    try await Setup.with(body: patternedData(megabytes: 1, period: 89)) { s in
      let big = Data(repeating: 7, count: 400 << 10)
      try big.write(to: s.victim)
      #expect(link(s.victim.path, s.cache.appendingPathComponent("tmp/a.resume.part").path) == 0)
      let record = ResumeRecord(
        url: s.asset.remote!.absoluteString, etag: "\"forged\"", bytes: 300 << 10, total: 1 << 20)
      try JSONEncoder().encode(record).write(
        to: s.cache.appendingPathComponent("tmp/a.resume.json"))
      let outcome = try await withEngine([s.asset], cache: s.cache) { engine in
        await engine.refresh("a")
      }
      #expect(outcome.isUpdated, "\(outcome)")
      #expect(try Data(contentsOf: s.victim) == big)
      // A plain GET: nothing was resumed from the planted file.
      #expect(await s.origin.requests(path: "/a.bin").allSatisfy { $0.header("Range") == nil })
    }
  }

  @Test func filesAreOwnerOnlyWhateverTheUmask() async throws {
    try await Setup.with { s in
      let sha = try await withEngine([s.asset], cache: s.cache) { engine in
        #expect(await engine.refresh("a").isUpdated)
        return try #require(await engine.status("a")?.sha256)
      }
      for name in ["entries/a.json", "objects/\(sha)", "CACHEDIR.TAG"] {
        let info = try fm.attributesOfItem(atPath: s.cache.appendingPathComponent(name).path)
        #expect((info[.posixPermissions] as? Int) == 0o600, "\(name)")
      }
    }
  }
}
