import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Work proportional to what changed: the correctness side of the scale benchmarks (timings
/// live in scripts/bench.sh, not here).
@Suite struct ScaleBehaviourTests {
  func assets(_ count: Int, origin: LoopbackOrigin) -> [AssetDefinition] {
    (0..<count).map {
      AssetDefinition(
        id: "a\($0)", remote: URL(string: "\(origin.baseURL)/a\($0).json"), format: .json,
        timeout: 30)
    }
  }

  /// Runs `body` with an origin serving `/a0.json` ... `/a<count-1>.json`, shut down afterwards.
  func withOrigin(serving count: Int, _ body: (LoopbackOrigin) async throws -> Void)
    async throws
  {
    try await AssetWatchTestKit.withOrigin { origin in
      for i in 0..<count {
        await origin.setResource(
          "/a\(i).json", body: Data("[\(i)]".utf8), contentType: "application/json")
      }
      try await body(origin)
    }
  }

  /// Plants a blob no entry names (what the sweep removes) and returns its path.
  static func plantOrphan(in cache: URL, _ text: String) throws -> String {
    let data = Data(text.utf8)
    let path = cache.appendingPathComponent("objects/\(sha256Hex(data))").path
    try data.write(to: URL(fileURLWithPath: path))
    return path
  }

  /// The sweep runs at a start, never per commit: an orphan blob planted before the start is
  /// gone after it, one planted after it outlives a sync of sixty assets.
  @Test func aSyncOfManyAssetsSweepsOnceAtStartAndNeverPerCommit() async throws {
    try await withOrigin(serving: 60) { origin in
      try await withTemporaryDirectory { dir in
        let defs = assets(60, origin: origin)
        let seed = try makeTestEngine(defs, cache: dir.cache)
        await seed.start()
        await seed.shutdown()
        let early = try Self.plantOrphan(in: dir.cache, "early")
        try await withEngine(defs, cache: dir.cache) { engine in
          #expect(!FileManager.default.fileExists(atPath: early), "the start swept")
          let late = try Self.plantOrphan(in: dir.cache, "late")
          let results = await engine.refreshAll()
          #expect(results.allSatisfy { $0.outcome.isUpdated })
          #expect(FileManager.default.fileExists(atPath: late), "no commit swept")
        }
      }
    }
  }

  /// A one-shot reader (`assetwatch status`) starts without the sweep, which would read every
  /// entry again; a plain start still sweeps.
  @Test func aStartWithoutSweepingLeavesHousekeepingAlone() async throws {
    try await withTemporaryDirectory { dir in
      let defs = [AssetDefinition(id: "a", remote: URL(string: "scripted://a"), format: .json)]
      let first = try makeTestEngine(defs, cache: dir.cache, fetchers: [])
      await first.start()
      await first.shutdown()
      let orphan = try Self.plantOrphan(in: dir.cache, "orphan")
      let looking = try makeTestEngine(defs, cache: dir.cache, fetchers: [])
      await looking.start(only: nil, sweeping: false)
      #expect(FileManager.default.fileExists(atPath: orphan))
      await looking.shutdown()
      let tidying = try makeTestEngine(defs, cache: dir.cache, fetchers: [])
      await tidying.start()
      #expect(!FileManager.default.fileExists(atPath: orphan))
      await tidying.shutdown()
    }
  }

  @Test func a304RecordsFreshnessWithoutRewritingTheEntry() async throws {
    try await withOrigin(serving: 1) { origin in
      try await withTemporaryDirectory { dir in
        let cache = dir.url.appendingPathComponent("c")
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let asset = assets(1, origin: origin)
        try await withEngine(asset, cache: cache, clock: clock) { engine in
          #expect(await engine.refresh("a0").isUpdated)
          let entry = cache.appendingPathComponent("entries/a0.json")
          let before = try FileManager.default.attributesOfItem(atPath: entry.path)
          clock.advance(by: 100)
          let second = await engine.refresh("a0")
          #expect("\(second)" == "\(RefreshOutcome.notModified)")
          let after = try FileManager.default.attributesOfItem(atPath: entry.path)
          #expect(
            before[.systemFileNumber] as? Int == after[.systemFileNumber] as? Int, "not rewritten")
          #expect(await engine.status("a0")?.checkedAt == clock.now())
        }
        // The journal written at shutdown carries the freshness to the next start.
        try await withEngine(asset, cache: cache, clock: clock, fetchers: []) { next in
          #expect(await next.status("a0")?.checkedAt == clock.now())
        }
      }
    }
  }

  /// The rule: an unchanged `entries/` folder is not read at all, and a changed one only for the
  /// entries whose files changed.
  @Test func noticingOtherProcessesReadsNothingWhenNothingChanged() {
    let first = BlobStamp(inode: 7, size: 4096, modified: 1, changed: 1)
    let second = BlobStamp(inode: 7, size: 4096, modified: 2, changed: 2)
    var changes = ExternalChanges()
    let looks = [first, first, first, second, second].map { changes.folderChanged($0) }
    #expect(looks == [true, false, false, true, false], "an unchanged folder is not read")
    let entry = BlobStamp(inode: 9, size: 300, modified: 5, changed: 5)
    #expect(!ExternalChanges.mustRead(synced: entry, now: entry))
    #expect(ExternalChanges.mustRead(synced: entry, now: nil), "removed by another process")
    #expect(ExternalChanges.mustRead(synced: nil, now: entry), "written by another process")
    #expect(
      ExternalChanges.mustRead(
        synced: entry, now: BlobStamp(inode: 10, size: 300, modified: 5, changed: 6)))
  }

  /// The engine follows the rule: our own writes are not taken for another process's, and
  /// another process's drop is picked up.
  @Test func anotherProcesssDropIsPickedUp() async throws {
    try await withTemporaryDirectory { dir in
      let cache = dir.url.appendingPathComponent("c")
      let fetcher = ScriptedFetcher()
      fetcher.set("[1]", etag: "\"1\"")
      let defs = (0..<20).map {
        AssetDefinition(id: "s\($0)", remote: URL(string: "scripted://s\($0)"), format: .json)
      }
      try await withEngine(defs, cache: cache, fetchers: [fetcher]) { engine in
        for def in defs { _ = await engine.refresh(def.id) }
        await engine.reloadExternalChanges()
        #expect(await engine.statuses().allSatisfy { $0.source == .cached })
        try await withEngine([defs[3]], cache: cache, fetchers: [fetcher]) { other in
          try await other.dropCache("s3")
        }
        await engine.reloadExternalChanges()
        #expect(await engine.status("s3")?.source == AssetSource.none)
        #expect(await engine.status("s4")?.source == .cached)
      }
    }
  }

  /// A started engine with one asset `s` refreshed every `interval` by a scripted fetcher
  /// (`[1]`, ETag `"1"`), over a fresh cache, on a manual clock.
  static func withScriptedAsset(
    every interval: TimeInterval,
    _ body: (AssetEngine, ManualClock, ScriptedFetcher) async throws -> Void
  ) async throws {
    try await withTemporaryDirectory { dir in
      let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
      let fetcher = ScriptedFetcher()
      fetcher.set("[1]", etag: "\"1\"")
      let asset = AssetDefinition(
        id: "s", remote: URL(string: "scripted://s"), format: .json, refresh: .every(interval))
      try await withEngine(
        [asset], cache: dir.url.appendingPathComponent("c"), clock: clock, fetchers: [fetcher]
      ) { engine in try await body(engine, clock, fetcher) }
    }
  }

  @Test func theSchedulerSleepsUntilTheNextDueTime() async throws {
    try await Self.withScriptedAsset(every: 0.5) { engine, clock, fetcher in
      #expect(await engine.refresh("s").isUpdated)
      await engine.startAutoRefresh()
      // Not a 100 ms poll: one sleep, until the asset is due half a second after its check.
      let deadline = try await pendingSleep(clock)
      #expect(abs(deadline.timeIntervalSince(clock.now()) - 0.5) < 0.001)
      #expect(fetcher.fetches == 1)
      clock.advance(by: 0.5)
      for _ in 0..<10_000 where fetcher.fetches < 2 {
        try await Task.sleep(for: .milliseconds(1))
      }
      #expect(fetcher.fetches == 2)
      await engine.stopAutoRefresh()
    }
  }

  /// Idle ticks start nothing until an asset is due; then every due asset is fetched (the
  /// decision not to look is ``SchedulerStateTests``').
  @Test func idleTicksFetchNothingUntilAssetsAreDue() async throws {
    try await withTemporaryDirectory { dir in
      let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
      let fetcher = ScriptedFetcher()
      fetcher.set("[1]", etag: "\"1\"")
      let defs = (0..<40).map {
        AssetDefinition(
          id: "s\($0)", remote: URL(string: "scripted://s\($0)"), format: .json,
          refresh: .every(3600))
      }
      try await withEngine(
        defs, cache: dir.url.appendingPathComponent("c"), clock: clock, fetchers: [fetcher]
      ) { engine in
        for def in defs { _ = await engine.refresh(def.id) }  // each due again in an hour
        let fetches = fetcher.fetches
        await engine.tick()
        for _ in 0..<9 {  // the per-second look at other processes
          clock.advance(by: 1)
          await engine.tick()
        }
        #expect(fetcher.fetches == fetches)
        clock.advance(by: 3600)
        await engine.tick()
        for _ in 0..<10_000 where fetcher.fetches < fetches + defs.count {
          try await Task.sleep(for: .milliseconds(1))
        }
        #expect(fetcher.fetches == fetches + defs.count)
      }
    }
  }

  /// A wall clock stepped back a day (an NTP correction, a VM restored) does not make every
  /// asset wait a day more: the step moves their next checks back with it.
  @Test func aClockSteppedBackMovesTheAssetsNextChecksBackWithIt() async throws {
    try await Self.withScriptedAsset(every: 300) { engine, clock, fetcher in
      #expect(await engine.refresh("s").isUpdated)
      await engine.tick()
      #expect(await engine.status("s")?.nextAttemptAt == clock.now().addingTimeInterval(300))
      clock.advance(by: -86_400)
      await engine.tick()
      #expect(
        await engine.status("s")?.nextAttemptAt == clock.now().addingTimeInterval(300),
        "due five minutes after the step, not a day and five minutes")
      clock.advance(by: 300)
      await engine.tick()
      for _ in 0..<10_000 where fetcher.fetches < 2 {
        try await Task.sleep(for: .milliseconds(1))
      }
      #expect(fetcher.fetches == 2)
    }
  }

  /// The scheduler's sleep deadline, once it is asleep (bounded wait).
  func pendingSleep(_ clock: ManualClock) async throws -> Date {
    for _ in 0..<10_000 {
      if let first = clock.pendingDeadlines.first { return first }
      try await Task.sleep(for: .milliseconds(1))
    }
    throw CancellationError()
  }
}

/// A command about one asset reads one entry, not thousands.
@Suite struct PartialStartTests {
  @Test func startingForOneAssetLoadsOnlyIt() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let cache = dir.url.appendingPathComponent("c")
    let fetcher = ScriptedFetcher()
    fetcher.set("[1]", etag: "\"1\"")
    let defs = (0..<30).map {
      AssetDefinition(id: "s\($0)", remote: URL(string: "scripted://s\($0)"), format: .json)
    }
    // Distinct bodies: assets with identical bytes share one blob, and each commit replaces it.
    let seed = try makeTestEngine(defs, cache: cache, fetchers: [fetcher])
    await seed.start()
    for def in defs {
      fetcher.set("[\"\(def.id)\"]", etag: "\"\(def.id)\"")
      #expect(await seed.refresh(def.id).isUpdated)
    }
    await seed.shutdown()
    // A damaged entry of another asset is not even read.
    try Data("{broken".utf8).write(to: cache.appendingPathComponent("entries/s7.json"))
    let orphan = try ScaleBehaviourTests.plantOrphan(in: cache, "orphan")
    let engine = try makeTestEngine(defs, cache: cache, fetchers: [fetcher])
    await engine.start(only: ["s3"])
    #expect(await engine.statuses().map(\.id) == ["s3"])
    #expect(await engine.status("s3")?.source == .cached)
    #expect(FileManager.default.fileExists(atPath: orphan), "no sweep for one asset")
    #expect(await engine.store.hashes.count == 0)
    await engine.shutdown()
    #expect(
      try String(contentsOf: cache.appendingPathComponent("entries/s7.json"), encoding: .utf8)
        == "{broken")
  }
}
