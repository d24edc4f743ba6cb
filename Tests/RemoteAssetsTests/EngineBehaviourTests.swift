import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

@Suite struct EngineBehaviourTests {
  let t0 = Date(timeIntervalSince1970: 1_800_000_000)

  /// Runs `body` with a started engine for one `scripted://flags` asset (ttl 60 s, maxStale
  /// 120 s) in a fresh cache, shut down and removed afterwards.
  func withFlagsEngine(
    _ fetcher: ScriptedFetcher, clock: ManualClock, bundled: String? = "{\"flag\": false}",
    _ body: (AssetEngine, TemporaryDirectory) async throws -> Void
  ) async throws {
    let asset = AssetDefinition(
      id: "flags", remote: URL(string: "scripted://flags"),
      bundled: bundled.map { .bytes(Data($0.utf8)) }, format: .json,
      ttl: .seconds(60), maxStale: 120)
    try await withEngine([asset], clock: clock, fetchers: [fetcher], body)
  }

  @Test func freshnessMovesFromFreshToStaleToExpiredAndBackOn304() async throws {
    let clock = ManualClock(now: t0)
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"flag": true}"#, etag: "\"1\"")
    try await withFlagsEngine(fetcher, clock: clock) { engine, _ throws in
      #expect(await engine.status("flags")?.state(at: clock.now()) == .bundled)
      #expect(await engine.refresh("flags").isUpdated)
      #expect(await engine.status("flags")?.state(at: clock.now()) == .fresh)
      clock.advance(by: 61)
      #expect(await engine.status("flags")?.state(at: clock.now()) == .stale)
      clock.advance(by: 120)
      #expect(await engine.status("flags")?.state(at: clock.now()) == .expired)
      #expect(
        try await engine.data("flags") == Data(#"{"flag": true}"#.utf8), "expired is still served")
      #expect(await engine.refresh("flags") == .notModified)
      #expect(await engine.status("flags")?.state(at: clock.now()) == .fresh)
    }
  }

  @Test func readPolicies() async throws {
    let clock = ManualClock(now: t0)
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"flag": true}"#, etag: "\"1\"")
    try await withFlagsEngine(fetcher, clock: clock) { engine, _ throws in
      #expect(try await engine.data("flags", policy: .immediate) == Data(#"{"flag": false}"#.utf8))
      #expect(fetcher.fetches == 0)
      #expect(
        try await engine.data("flags", policy: .refreshBeforeReturning)
          == Data(#"{"flag": true}"#.utf8))
      #expect(fetcher.fetches == 1)
      fetcher.set(#"{"flag": "later"}"#, etag: "\"2\"")
      // Fresh (within ttl): neither policy goes to the network.
      #expect(
        try await engine.data("flags", policy: .refreshBeforeReturning)
          == Data(#"{"flag": true}"#.utf8))
      #expect(fetcher.fetches == 1)
      clock.advance(by: 61)  // stale now: reads refresh
      let events = await engine.events()
      #expect(
        try await engine.data("flags", policy: .immediateWithBackgroundRefresh)
          == Data(#"{"flag": true}"#.utf8))
      let updated = await firstEvent(in: events) {
        if case .assetChanged(let s) = $0 { s.etag == "\"2\"" } else { false }
      }
      #expect(updated != nil, "the background refresh lands")
    }
  }

  @Test func typedKeysMaterializersAndValidators() async throws {
    struct Flags: Decodable, Sendable { var flag: Bool }
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"flag": true, "ui": {"theme": "dark"}}"#, etag: "\"1\"")
    try await withFlagsEngine(fetcher, clock: ManualClock(now: t0)) { engine, _ in
      let theme = RemoteAssetKey<String>("flags", "ui.theme", defaultValue: "light")
      #expect(await engine.value(for: theme) == "light", "the bundled copy has no ui.theme")
      _ = await engine.refresh("flags")
      #expect(await engine.value(for: theme) == "dark")
      #expect(
        await engine.value(for: RemoteAssetKey<Int>("flags", "flag", defaultValue: 7)) == 7,
        "wrong type -> default")
      #expect(
        await engine.value(for: RemoteAssetKey<Bool>("nope", "flag", defaultValue: true)) == true)
      #expect(try await engine.value("flags", as: .json(Flags.self)).flag)
      #expect(try await engine.value("flags", as: Materializer<String>.text.map { $0.count }) > 10)

      // A custom validator rejects bytes that parse but break the app's rules.
      await engine.addValidator("flags", .json(Flags.self))
      fetcher.set(#"{"flag": "yes"}"#, etag: "\"2\"")
      let failure = try #require(await engine.refresh("flags").failure)
      #expect(failure.kind == .invalid)
      #expect(
        try await engine.value("flags", as: .json(Flags.self)).flag, "the last good copy stays")
    }
  }

  @Test func resetDropAndRollback() async throws {
    let fetcher = ScriptedFetcher()
    try await withFlagsEngine(fetcher, clock: ManualClock(now: t0)) { engine, dir in
      fetcher.set(#"{"v": 1}"#, etag: "\"1\"")
      _ = await engine.refresh("flags")
      fetcher.set(#"{"v": 2}"#, etag: "\"2\"")
      _ = await engine.refresh("flags")
      try await engine.rollback("flags")
      #expect(try await engine.data("flags") == Data(#"{"v": 1}"#.utf8))
      try await engine.rollback("flags")
      #expect(try await engine.data("flags") == Data(#"{"v": 2}"#.utf8))

      try await engine.resetToBundled("flags")
      #expect(await engine.status("flags")?.source == .bundled)
      #expect(try await engine.data("flags") == Data(#"{"flag": false}"#.utf8))
      try await engine.rollback("flags")
      #expect(
        try await engine.data("flags") == Data(#"{"v": 2}"#.utf8),
        "reset keeps the cached copy for rollback")

      let entry = dir.cache.appendingPathComponent("entries/flags.json")
      #expect(FileManager.default.fileExists(atPath: entry.path))
      try await engine.dropCache("flags")
      #expect(!FileManager.default.fileExists(atPath: entry.path), "drop deletes the entry on disk")
      #expect(await engine.status("flags")?.source == .bundled)
      await #expect(throws: CommandError.self) { try await engine.rollback("flags") }
    }
    try await withFlagsEngine(fetcher, clock: ManualClock(now: t0), bundled: nil) { bare, _ in
      #expect(await bare.status("flags")?.state(at: t0) == .missing)
      await #expect(throws: AssetUnavailable.self) { _ = try await bare.data("flags") }
    }
  }

  @Test func eventsStartWithSnapshotAndReportChanges() async throws {
    let fetcher = ScriptedFetcher()
    fetcher.set(#"{"v": 1}"#, etag: "\"1\"")
    try await withFlagsEngine(fetcher, clock: ManualClock(now: t0)) { engine, _ in
      var iterator = await engine.events().makeAsyncIterator()
      guard case .snapshot(let snapshot)? = await iterator.next() else {
        Issue.record("the first event is a snapshot")
        return
      }
      #expect(snapshot.assets.map(\.id) == ["flags"])
      _ = await engine.refresh("flags")
      var sawChecking = false
      var sawUpdatedLog = false
      while let event = await iterator.next() {
        if case .assetChanged(let s) = event, s.activity == .checking { sawChecking = true }
        if case .log(let entry) = event, entry.message.hasPrefix("updated to") {
          sawUpdatedLog = true
          break
        }
      }
      #expect(sawChecking && sawUpdatedLog)
    }
  }

  @Test func slowSubscriberNeverBlocksTheEngineAndIsResynced() async throws {
    let fetcher = ScriptedFetcher()
    try await withFlagsEngine(fetcher, clock: ManualClock(now: t0)) { engine, _ in
      let stream = await engine.events()  // never read while the engine works
      for i in 0..<700 {  // more events than the subscriber's buffer holds
        if i % 2 == 0 { await engine.pauseAutoRefresh() } else { await engine.resumeAutoRefresh() }
      }
      var iterator = stream.makeAsyncIterator()
      var snapshots = 0
      var count = 0
      while count < 600, let event = await iterator.next() {
        count += 1
        if case .snapshot = event { snapshots += 1 }
        if snapshots == 1, count > 1 { break }
      }
      #expect(snapshots >= 1, "a lagging subscriber gets a fresh snapshot")
    }
  }

  @Test func fileRemoteGoesThroughTheSamePipeline() async throws {
    try await withTemporaryDirectory { dir in
      let source = try dir.file("live/filter.js", "let x = 1\n")
      let asset = AssetDefinition(
        id: "filter", remote: source, bundled: .bytes(Data("// bundled".utf8)), format: .text)
      try await withEngine([asset], cache: dir.cache) { engine in
        #expect(await engine.refresh("filter").isUpdated)
        #expect(await engine.refresh("filter") == .notModified)
        try Data([0xFF, 0xFE, 0x00]).write(to: source)
        #expect(await engine.refresh("filter").failure?.kind == .invalid)
        #expect(try await engine.data("filter") == Data("let x = 1\n".utf8))
      }
    }
  }

  @Test func backoffHasFullJitterCapAndRetryAfter() {
    let b = Backoff(base: 2, cap: 900)
    #expect(b.delay(failures: 1, retryAfter: nil, random: 1) == 4)
    #expect(b.delay(failures: 3, retryAfter: nil, random: 0.5) == 8)
    #expect(b.delay(failures: 30, retryAfter: nil, random: 1) == 900)
    #expect(b.delay(failures: 1, retryAfter: 60, random: 0) == 60)
    #expect(b.delay(failures: 1, retryAfter: 1e9, random: 0) == 900)
  }
}
