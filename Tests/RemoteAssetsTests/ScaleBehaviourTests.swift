import DemoOrigin
import Foundation
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

  func origin(serving count: Int) async throws -> LoopbackOrigin {
    let origin = try await LoopbackOrigin.start()
    for i in 0..<count {
      await origin.setResource(
        "/a\(i).json", body: Data("[\(i)]".utf8), contentType: "application/json")
    }
    return origin
  }

  @Test func aSyncOfManyAssetsSweepsOnceAtStartAndNeverPerCommit() async throws {
    let origin = try await origin(serving: 60)
    defer { Task { try? await origin.shutdown() } }
    let dir = TempDir()
    defer { dir.remove() }
    let engine = try makeEngine(
      assets(60, origin: origin), cache: dir.url.appendingPathComponent("c"))
    await engine.start()
    let results = await engine.refreshAll()
    #expect(results.allSatisfy { $0.outcome.isUpdated })
    #expect(await engine.sweepCount == 1)
    await engine.shutdown()
  }

  @Test func a304RecordsFreshnessWithoutRewritingTheEntry() async throws {
    let origin = try await origin(serving: 1)
    defer { Task { try? await origin.shutdown() } }
    let dir = TempDir()
    defer { dir.remove() }
    let cache = dir.url.appendingPathComponent("c")
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    let asset = assets(1, origin: origin)
    let engine = try makeEngine(asset, cache: cache, clock: clock)
    await engine.start()
    #expect(await engine.refresh("a0").isUpdated)
    let entry = cache.appendingPathComponent("entries/a0.json")
    let before = try FileManager.default.attributesOfItem(atPath: entry.path)
    clock.advance(by: 100)
    let second = await engine.refresh("a0")
    #expect("\(second)" == "\(RefreshOutcome.notModified)")
    let after = try FileManager.default.attributesOfItem(atPath: entry.path)
    #expect(before[.systemFileNumber] as? Int == after[.systemFileNumber] as? Int, "not rewritten")
    #expect(await engine.status("a0")?.checkedAt == clock.now())
    await engine.shutdown()
    // The journal written at shutdown carries the freshness to the next start.
    let next = try makeEngine(asset, cache: cache, clock: clock, fetchers: [])
    await next.start()
    #expect(await next.status("a0")?.checkedAt == clock.now())
    await next.shutdown()
  }

  @Test func noticingOtherProcessesReadsNothingWhenNothingChanged() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let cache = dir.url.appendingPathComponent("c")
    let fetcher = ScriptedFetcher()
    fetcher.set("[1]", etag: "\"1\"")
    let defs = (0..<20).map {
      AssetDefinition(id: "s\($0)", remote: URL(string: "scripted://s\($0)"), format: .json)
    }
    let engine = try makeEngine(defs, cache: cache, fetchers: [fetcher])
    await engine.start()
    for def in defs { _ = await engine.refresh(def.id) }
    await engine.reloadExternalChanges()  // once after our own writes: stats, reads nothing new
    let decodes = await engine.externalDecodes
    for _ in 0..<5 { await engine.reloadExternalChanges() }
    #expect(await engine.externalDecodes == decodes, "an unchanged entries/ folder is not read")
    // Another process changes one entry: exactly that one is read.
    let other = try makeEngine([defs[3]], cache: cache, fetchers: [fetcher])
    await other.start()
    try await other.dropCache("s3")
    await other.shutdown()
    await engine.reloadExternalChanges()
    #expect(await engine.externalDecodes == decodes + 1)
    #expect(await engine.status("s3")?.source == AssetSource.none)
    await engine.shutdown()
  }

  @Test func theSchedulerSleepsUntilTheNextDueTime() async throws {
    let dir = TempDir()
    defer { dir.remove() }
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    let fetcher = ScriptedFetcher()
    fetcher.set("[1]", etag: "\"1\"")
    let asset = AssetDefinition(
      id: "s", remote: URL(string: "scripted://s"), format: .json, refresh: .every(0.5))
    let engine = try makeEngine(
      [asset], cache: dir.url.appendingPathComponent("c"), clock: clock, fetchers: [fetcher])
    await engine.start()
    #expect(await engine.refresh("s").isUpdated)
    await engine.startAutoRefresh()
    // Not a 100 ms poll: one sleep, until the asset is due half a second after its check.
    let deadline = try await pendingSleep(clock)
    #expect(abs(deadline.timeIntervalSince(clock.now()) - 0.5) < 0.001)
    #expect(fetcher.fetches == 1)
    clock.advance(by: 0.5)
    for _ in 0..<10_000 where fetcher.fetches < 2 { try await Task.sleep(for: .milliseconds(1)) }
    #expect(fetcher.fetches == 2)
    await engine.stopAutoRefresh()
    await engine.shutdown()
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
    let dir = TempDir()
    defer { dir.remove() }
    let cache = dir.url.appendingPathComponent("c")
    let fetcher = ScriptedFetcher()
    fetcher.set("[1]", etag: "\"1\"")
    let defs = (0..<30).map {
      AssetDefinition(id: "s\($0)", remote: URL(string: "scripted://s\($0)"), format: .json)
    }
    // Distinct bodies: assets with identical bytes share one blob, and each commit replaces it.
    let seed = try makeEngine(defs, cache: cache, fetchers: [fetcher])
    await seed.start()
    for def in defs {
      fetcher.set("[\"\(def.id)\"]", etag: "\"\(def.id)\"")
      #expect(await seed.refresh(def.id).isUpdated)
    }
    await seed.shutdown()
    // A damaged entry of another asset is not even read.
    try Data("{broken".utf8).write(to: cache.appendingPathComponent("entries/s7.json"))
    let engine = try makeEngine(defs, cache: cache, fetchers: [fetcher])
    await engine.start(only: ["s3"])
    #expect(await engine.statuses().map(\.id) == ["s3"])
    #expect(await engine.status("s3")?.source == .cached)
    #expect(await engine.sweepCount == 0)
    #expect(await engine.store.hashes.count == 0)
    await engine.shutdown()
    #expect(
      try String(contentsOf: cache.appendingPathComponent("entries/s7.json"), encoding: .utf8)
        == "{broken")
  }
}
