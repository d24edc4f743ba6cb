import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The disk budget (`cacheLimit`): the pure plan, then the sweep on a real cache folder under a
/// real engine.
@Suite struct CacheBudgetTests {
  // MARK: - The plan, without disk

  static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

  static func candidate(
    _ kind: EvictionPlan.Candidate.Kind, at offset: TimeInterval, _ blobs: Set<String>
  ) -> EvictionPlan.Candidate {
    EvictionPlan.Candidate(kind: kind, usedAt: t0 + offset, blobs: blobs)
  }

  @Test func underTheLimitNothingIsEvicted() {
    let plan = EvictionPlan.make(
      total: 900, limit: 1000,
      candidates: [Self.candidate(.previous(id: "a"), at: 0, ["a0"])], kept: ["a1"],
      blobBytes: ["a0": 300, "a1": 300])
    #expect(plan.evict.isEmpty)
    #expect(plan.blobs.isEmpty)
    #expect(plan.meetsLimit)
  }

  @Test func previousGenerationsGoOldestUseFirstAndOnlyUntilTheCacheFits() {
    let plan = EvictionPlan.make(
      total: 1300, limit: 1000,
      candidates: [
        Self.candidate(.previous(id: "b"), at: 20, ["b0"]),
        Self.candidate(.previous(id: "a"), at: 10, ["a0"]),
        Self.candidate(.previous(id: "c"), at: 30, ["c0"]),
      ],
      kept: ["a1", "b1", "c1"], blobBytes: ["a0": 200, "b0": 200, "c0": 200])
    #expect(plan.evict == [.previous(id: "a"), .previous(id: "b")])
    #expect(plan.blobs == ["a0", "b0"])
    #expect(plan.bytesAfter == 900)
    #expect(plan.meetsLimit)
  }

  @Test func anUnconfiguredAssetUsedEarlierGoesBeforeANewerPreviousGeneration() {
    let plan = EvictionPlan.make(
      total: 1200, limit: 1000,
      candidates: [
        Self.candidate(.previous(id: "a"), at: 20, ["a0"]),
        EvictionPlan.Candidate(
          kind: .unconfigured(id: "gone"), usedAt: Self.t0 + 10, blobs: ["g1", "g0"],
          ownBytes: 10),
      ],
      kept: ["a1"], blobBytes: ["a0": 200, "g1": 150, "g0": 100])
    #expect(plan.evict == [.unconfigured(id: "gone")])
    #expect(plan.blobs == ["g1", "g0"])
    #expect(plan.bytesAfter == 940)
  }

  @Test func aServedCopyIsNeverFreedEvenWhenTheCurrentCopiesAloneExceedTheLimit() {
    // "shared" is both a's rollback copy and b's current copy: evicting a's previous frees nothing.
    let plan = EvictionPlan.make(
      total: 5000, limit: 1000,
      candidates: [
        Self.candidate(.previous(id: "a"), at: 10, ["shared"]),
        Self.candidate(.previous(id: "c"), at: 20, ["c0"]),
      ],
      kept: ["a1", "shared"], blobBytes: ["a1": 2000, "shared": 2000, "c0": 1000])
    #expect(plan.evict == [.previous(id: "c")])
    #expect(plan.blobs == ["c0"])
    #expect(plan.bytesAfter == 4000)
    #expect(!plan.meetsLimit)
  }

  @Test func aBlobTwoCandidatesNameIsFreedWithTheSecond() {
    let plan = EvictionPlan.make(
      total: 1300, limit: 1000,
      candidates: [
        Self.candidate(.previous(id: "a"), at: 10, ["same"]),
        Self.candidate(.previous(id: "b"), at: 20, ["same"]),
        Self.candidate(.previous(id: "c"), at: 30, ["c0"]),
      ],
      kept: [], blobBytes: ["same": 400, "c0": 400])
    #expect(plan.evict == [.previous(id: "a"), .previous(id: "b")])
    #expect(plan.blobs == ["same"])
    #expect(plan.meetsLimit)
  }

  // MARK: - Names

  @Test func chunkIndexNamesParseBackToTheirBlob() {
    let sha = String(repeating: "ab", count: 32)
    #expect(CacheLayout.chunkIndexName(of: sha) == sha + ".chunks")
    #expect(CacheLayout.chunkIndexBlob(sha + ".chunks") == sha)
    #expect(CacheLayout.chunkIndexBlob("xyz.chunks") == nil)
    #expect(CacheLayout.chunkIndexBlob(sha) == nil)
    #expect(CacheLayout.isKnown(sha + ".chunks", in: CacheLayout.objects))
    #expect(CacheLayout.isKnown(sha + ".chunks.123.tmp", in: CacheLayout.objects))
    #expect(!CacheLayout.isKnown("xyz.chunks.123.tmp", in: CacheLayout.objects))
    #expect(!CacheLayout.isKnown(sha + ".chunks.old", in: CacheLayout.objects))
  }

  @Test func anEntryWrittenBeforeTheBudgetStillReadsAndUsesTheCurrentFetchTime() throws {
    let old = """
      {
        "appVersion" : "1",
        "consecutiveFailures" : 0,
        "current" : { "fetchedAt" : "2024-01-02T00:00:00Z", "sha256" : "\(String(repeating: "1", count: 64))", "size" : 3 },
        "formatVersion" : 1,
        "id" : "a",
        "previous" : { "fetchedAt" : "2024-01-01T00:00:00Z", "sha256" : "\(String(repeating: "0", count: 64))", "size" : 3 }
      }
      """
    let entry = try CacheStore.decodeEntry(Data(old.utf8), id: "a")
    #expect(entry.previous?.retiredAt == nil)
    #expect(entry.previousRetiredAt == entry.current?.fetchedAt)
    // Written with a retirement time, it reads back the same, by both readers.
    var retired = entry
    retired.previous?.retiredAt = Date(timeIntervalSince1970: 1_704_100_000)
    let data = try CacheStore.encodeEntry(retired)
    #expect(CacheEntryJSON.decode(data) == retired)
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
    #expect(try decoder.decode(CacheEntry.self, from: data) == retired)
  }

  // MARK: - A real cache folder and engine

  /// A cache folder laid out by hand: blobs of `size` bytes whose names are their hashes, and
  /// entries naming them.
  struct Fixture {
    let cache: URL
    let store: CacheStore
    static let size = 200_000

    init(_ directory: TemporaryDirectory) throws {
      cache = directory.cache
      store = try CacheStore(root: cache)
    }

    /// Writes a blob of distinct bytes; returns its generation.
    func blob(_ seed: UInt8, retiredAt: Date? = nil, fetchedAt: Date = CacheBudgetTests.t0)
      throws -> Generation
    {
      var data = Data(count: Self.size)
      data[0] = seed
      data[1] = seed &+ 1
      let sha = sha256Hex(data)
      try data.write(to: cache.appendingPathComponent("objects/\(sha)"))
      return Generation(
        sha256: sha, size: Int64(Self.size), version: "v\(seed)", fetchedAt: fetchedAt,
        retiredAt: retiredAt)
    }

    func entry(
      _ id: String, current: Generation?, previous: Generation?, checkedAt: Date? = nil
    ) throws {
      try store.commitEntry(
        CacheEntry(
          id: id, appVersion: "1.0.0", current: current, previous: previous, checkedAt: checkedAt))
    }

    /// The entry on disk now (nil when absent or unreadable).
    func read(_ id: String) -> CacheEntry? { (try? store.readEntry(id)) ?? nil }

    func exists(_ generation: Generation?) -> Bool {
      guard let generation else { return false }
      return FileManager.default.fileExists(atPath: store.objectPath(generation.sha256))
    }
  }

  static func assets(_ ids: [String]) -> [AssetDefinition] {
    ids.map { AssetDefinition(id: $0, remote: URL(string: "scripted://\($0)")) }
  }

  @Test func overTheLimitTheOldestUsesGoAndTheServedCopiesStay() async throws {
    try await withTemporaryDirectory { directory in
      let f = try Fixture(directory)
      let a1 = try f.blob(1)
      let a0 = try f.blob(2, retiredAt: Self.t0 + 100)
      let b1 = try f.blob(3)
      let b0 = try f.blob(4, retiredAt: Self.t0 + 300)
      let g1 = try f.blob(5)
      try f.entry("a", current: a1, previous: a0)
      try f.entry("b", current: b1, previous: b0)
      // Last checked while configured at +200: older than b's rollback copy, newer than a's.
      try f.entry("gone", current: g1, previous: nil, checkedAt: Self.t0 + 200)
      // a's rollback copy has a chunk index; one more indexes a blob that is not there.
      let index = f.cache.appendingPathComponent(
        "objects/" + CacheLayout.chunkIndexName(of: a0.sha256))
      try Data(repeating: 7, count: 1000).write(to: index)
      let stray = f.cache.appendingPathComponent(
        "objects/" + CacheLayout.chunkIndexName(of: String(repeating: "e", count: 64)))
      try Data("x".utf8).write(to: stray)
      // A chunk index whose write was interrupted.
      let temp = f.cache.appendingPathComponent(
        "objects/" + CacheLayout.chunkIndexName(of: b0.sha256) + ".4242.tmp")
      try Data("half".utf8).write(to: temp)
      let before = f.store.measure()
      #expect(before > 5 * Int64(Fixture.size) + 1000)
      // Room for three blobs and the small files: two of the three candidates must go.
      let limit = 3 * Int64(Fixture.size) + 50_000
      try await withEngine(
        Self.assets(["a", "b"]), cache: f.cache, configure: { $0.cacheLimit = limit }
      ) { engine in
        #expect(!f.exists(a0))
        #expect(!FileManager.default.fileExists(atPath: index.path))
        #expect(!FileManager.default.fileExists(atPath: stray.path))
        #expect(!FileManager.default.fileExists(atPath: temp.path))
        #expect(!f.exists(g1))
        #expect(f.read("gone") == nil)
        #expect(f.exists(b0))
        #expect(f.exists(a1) && f.exists(b1))
        #expect(f.read("a")?.previous == nil)
        #expect(f.read("b")?.previous?.sha256 == b0.sha256)
        // The engine's record agrees with the disk.
        #expect(await engine.status("a")?.canRollback == false)
        #expect(await engine.status("b")?.canRollback == true)
        let usage = try #require(await engine.info().cache)
        #expect(usage.limit == limit)
        #expect(usage.bytes <= limit)
        #expect(usage.bytes == f.store.measure())
        await #expect {
          try await engine.rollback("a")
        } throws: { error in
          "\(error)".contains("no previous generation to roll back to")
        }
      }
    }
  }

  @Test func aDownloadThatPutsTheCacheOverItsLimitEvictsTheCopyItRetired() async throws {
    try await withOrigin { origin in
      func body(_ seed: UInt8) -> Data {
        var data = Data(count: Fixture.size)
        data[0] = seed
        return data
      }
      await origin.setResource(
        "/model.bin", body: body(1), contentType: "application/octet-stream",
        lastModified: Self.t0)
      let asset = AssetDefinition(
        id: "model", remote: URL(string: "\(origin.baseURL)/model.bin"), format: .binary)
      // Room for one copy and the small files, not two.
      try await withEngine(
        [asset], configure: { $0.cacheLimit = Int64(Fixture.size) + 50_000 }
      ) { engine, directory in
        #expect(await engine.refresh("model").word == "updated")
        let first = try #require(await engine.status("model")?.sha256)
        await origin.setResource(
          "/model.bin", body: body(2), contentType: "application/octet-stream",
          lastModified: Self.t0 + 60)
        #expect(await engine.refresh("model").word == "updated")
        // The pass after the commit runs beside the refresh: poll with a deadline.
        let deadline = ContinuousClock.now + .seconds(10)
        while await engine.status("model")?.canRollback == true, ContinuousClock.now < deadline {
          try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await engine.status("model")?.canRollback == false)
        let store = try CacheStore(root: directory.cache)
        #expect(!FileManager.default.fileExists(atPath: store.objectPath(first)))
        #expect((try? store.readEntry("model"))??.previous == nil)
        #expect((try? store.readEntry("model"))??.current?.sha256 != first)
        let usage = try #require(await engine.info().cache)
        #expect(usage.bytes <= usage.limit ?? 0)
      }
    }
  }

  /// `assetwatch refresh a` starts an engine for `a` alone: over the limit, its pass after the
  /// commit may take `a`'s rollback copy, never the copies of the assets it did not load (which
  /// it would otherwise count as unconfigured, and which other engines serve).
  @Test func anEngineStartedForOneAssetEvictsNothingOfTheOthers() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { directory in
        let f = try Fixture(directory)
        let a1 = try f.blob(1)
        let b1 = try f.blob(3)
        let c1 = try f.blob(5)
        try f.entry("a", current: a1, previous: nil, checkedAt: Self.t0)
        try f.entry("b", current: b1, previous: nil, checkedAt: Self.t0)
        try f.entry("c", current: c1, previous: nil, checkedAt: Self.t0)
        var fresh = Data(count: Fixture.size)
        fresh[0] = 9
        await origin.setResource(
          "/a.bin", body: fresh, contentType: "application/octet-stream", lastModified: Self.t0)
        let assets = ["a", "b", "c"].map {
          AssetDefinition(id: $0, remote: URL(string: "\(origin.baseURL)/\($0).bin"))
        }
        // Room for three blobs and the small files: the new copy of `a` makes four.
        let engine = try makeTestEngine(assets, cache: f.cache) {
          $0.cacheLimit = 3 * Int64(Fixture.size) + 50_000
        }
        await engine.start(only: ["a"])
        let events = await engine.events()
        #expect(await engine.refresh("a").word == "updated")
        let new = sha256Hex(fresh)
        // The pass after the commit takes the rollback copy it made (a1): then the cache fits.
        let evicted = await firstEvent(in: events, timeout: .seconds(30)) {
          if case .assetChanged(let status) = $0 {
            status.id == "a" && status.sha256 == new && !status.canRollback
          } else {
            false
          }
        }
        #expect(evicted != nil, "a's rollback copy went")
        #expect(!f.exists(a1))
        #expect(f.exists(b1) && f.exists(c1), "the copies of b and c stay")
        #expect(f.read("b")?.current?.sha256 == b1.sha256)
        #expect(f.read("c")?.current?.sha256 == c1.sha256)
        await engine.shutdown()
      }
    }
  }

  /// Another process committed `a` again, so the copy this process still serves from memory
  /// (it has not reloaded the entry yet) is `previous` on disk: the budget never takes it.
  @Test func aCopyThisProcessServesIsNeverEvictedThoughTheDiskCallsItPrevious() throws {
    try withTemporaryDirectory { directory in
      let f = try Fixture(directory)
      let served = try f.blob(1, retiredAt: Self.t0)
      let newer = try f.blob(2)
      let b1 = try f.blob(3)
      try f.entry("a", current: newer, previous: served)
      try f.entry("b", current: b1, previous: nil)
      // Room for two blobs: one must go, and the only candidate is the one served.
      let limit = 2 * Int64(Fixture.size) + 50_000
      for (servedNow, expectKept) in [([served.sha256], true), ([], false)] {
        let report = try f.store.sweepWhenFree(
          keep: [served.sha256, newer.sha256, b1.sha256],
          budget: CacheStore.Budget(
            limit: limit, configured: ["a", "b"], served: Set(servedNow + [b1.sha256])),
          leftovers: false)
        #expect(report != nil)
        #expect(f.exists(served) == expectKept, "served from memory: \(servedNow)")
      }
    }
  }

  @Test func underTheLimitNothingGoesAndUnconfiguredAssetsStay() async throws {
    try await withTemporaryDirectory { directory in
      let f = try Fixture(directory)
      let a1 = try f.blob(1)
      let a0 = try f.blob(2, retiredAt: Self.t0)
      let g1 = try f.blob(5)
      try f.entry("a", current: a1, previous: a0)
      try f.entry("gone", current: g1, previous: nil, checkedAt: Self.t0)
      try await withEngine(
        Self.assets(["a"]), cache: f.cache, configure: { $0.cacheLimit = 10 * Int64(Fixture.size) }
      ) { engine in
        #expect(f.exists(a0) && f.exists(a1) && f.exists(g1))
        #expect(f.read("gone") != nil)
        #expect(await engine.status("a")?.canRollback == true)
        #expect(await engine.info().cache?.bytes == f.store.measure())
      }
    }
  }

  @Test func theServedCopySurvivesWhenCurrentCopiesAloneExceedTheLimitAndTheWarningIsLogged()
    async throws
  {
    try await withTemporaryDirectory { directory in
      let f = try Fixture(directory)
      let a1 = try f.blob(1)
      let a0 = try f.blob(2, retiredAt: Self.t0)
      let b1 = try f.blob(3)
      try f.entry("a", current: a1, previous: a0)
      try f.entry("b", current: b1, previous: nil)
      let engine = try makeTestEngine(
        Self.assets(["a", "b"]), cache: f.cache, configure: { $0.cacheLimit = Int64(Fixture.size) })
      let events = await engine.events()
      await engine.start()
      let warning = await firstEvent(in: events) { event in
        if case .log(let entry) = event { return entry.level == .warning }
        return false
      }
      await engine.shutdown()
      guard case .log(let entry) = warning else {
        Issue.record("no warning was logged")
        return
      }
      #expect(entry.message.contains("over its limit"))
      #expect(entry.message.contains("never evicted"))
      #expect(f.exists(a1) && f.exists(b1))
      #expect(!f.exists(a0))
      #expect(f.read("a")?.current?.sha256 == a1.sha256)
    }
  }

  @Test func aResetRecordsWhenTheCopyStoppedBeingCurrent() async throws {
    try await withTemporaryDirectory { directory in
      let f = try Fixture(directory)
      let a1 = try f.blob(1)
      try f.entry("a", current: a1, previous: nil)
      let clock = ManualClock(now: Self.t0 + 5000)
      try await withEngine(Self.assets(["a"]), cache: f.cache, clock: clock) { engine in
        try await engine.resetToBundled("a")
        let entry = f.read("a")
        #expect(entry?.previous?.sha256 == a1.sha256)
        #expect(entry?.previous?.retiredAt == Self.t0 + 5000)
        // Rolled back to, it is current again and forgets its retirement.
        try await engine.rollback("a")
        #expect(f.read("a")?.current?.retiredAt == nil)
      }
    }
  }

  @Test func chunkIndexesAndKeptPartialsCountTowardTheSize() throws {
    try withTemporaryDirectory { directory in
      let f = try Fixture(directory)
      let a1 = try f.blob(1)
      let before = f.store.measure()
      try Data(repeating: 1, count: 4321).write(
        to: f.cache.appendingPathComponent("objects/" + CacheLayout.chunkIndexName(of: a1.sha256)))
      #expect(f.store.measure() == before + 4321)
      // A kept resume partial counts too; a file the engine did not make does not.
      try Data(repeating: 2, count: 5000).write(
        to: f.cache.appendingPathComponent("tmp/a.resume.part"))
      try Data(repeating: 3, count: 7000).write(
        to: f.cache.appendingPathComponent("tmp/notes.txt"))
      #expect(f.store.measure() == before + 4321 + 5000)
    }
  }
}
