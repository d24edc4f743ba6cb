import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssets
import RemoteAssetsTestKit
import Testing

/// `AssetEngine.apply(_:)` (a reload) against a real origin on loopback: added, removed and
/// changed assets, the others untouched, a transfer in flight across it, refusals, order.
@Suite struct ConfigurationReloadTests {
  /// A JSON asset at `path` of the origin, checked every hour.
  /// (Its timeout is longer than any wait here: a transfer held by a gate ends only when
  /// opened or cancelled.)
  static func asset(
    _ id: String, _ origin: LoopbackOrigin, path: String? = nil, every: TimeInterval = 3600
  ) -> AssetDefinition {
    AssetDefinition(
      id: id, remote: URL(string: "\(origin.baseURL)\(path ?? "/\(id).json")"), format: .json,
      refresh: .every(every), ttl: .seconds(3600), timeout: 300)
  }

  static func configuration(
    _ engine: AssetEngine, _ assets: [AssetDefinition]
  ) -> EngineConfiguration {
    var configuration = engine.configuration
    configuration.assets = assets
    return configuration
  }

  /// Waits (bounded, polled) until `condition` holds for the engine's statuses.
  static func waitUntil(
    _ engine: AssetEngine, _ what: String, timeout: Duration = .seconds(30),
    _ condition: @Sendable ([AssetStatus]) -> Bool
  ) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if condition(await engine.statuses()) { return }
      try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting for \(what): \(await engine.statuses().map(\.id))")
    throw CancellationError()
  }

  @Test func addsRemovesAndChangesAndLeavesTheOthersAlone() async throws {
    try await withOrigin { origin in
      for id in ["a", "b", "c", "d"] {
        await origin.setResource(
          "/\(id).json", body: Data(#"{"id": "\#(id)"}"#.utf8), contentType: "application/json")
      }
      let assets = ["a", "b", "c"].map { Self.asset($0, origin) }
      try await withEngine(assets) { engine, directory in
        _ = await engine.refreshAll()
        await engine.startAutoRefresh()
        let before = Dictionary(uniqueKeysWithValues: await engine.statuses().map { ($0.id, $0) })
        let events = await engine.events()
        let new = Self.configuration(
          engine,
          [Self.asset("a", origin), Self.asset("c", origin, every: 60), Self.asset("d", origin)])
        let reload = try await engine.apply(new)
        #expect(reload.added == ["d"])
        #expect(reload.removed == ["b"])
        #expect(reload.changed == ["c"])
        let after = await engine.statuses()
        #expect(after.map(\.id) == ["a", "c", "d"])
        // Untouched: the same copy, the same last check and the same next check.
        #expect(after.first { $0.id == "a" } == before["a"])
        // The interval: the next check is one new interval after the last.
        let c = try #require(after.first { $0.id == "c" })
        let checked = try #require(c.checkedAt)
        #expect(c.nextAttemptAt == checked.addingTimeInterval(60))
        #expect(c.sha256 == before["c"]?.sha256)
        // The removed asset's copy stays on disk (unconfigured; the budget may evict it).
        #expect(
          FileManager.default.fileExists(
            atPath: directory.cache.appendingPathComponent("entries/b.json").path))
        // Subscribers get the whole new table.
        let snapshot = await firstEvent(in: events) { event in
          if case .snapshot(let s) = event { return s.assets.map(\.id) == ["a", "c", "d"] }
          return false
        }
        #expect(snapshot != nil, "a snapshot with the new asset list")
        // The added asset is scheduled and fetched like a configured one.
        try await Self.waitUntil(engine, "d fetched") { statuses in
          statuses.first { $0.id == "d" }?.source == .cached
        }
        #expect(await origin.requestCount(path: "/a.json") == 1)
      }
    }
  }

  @Test func aNewIntervalLetsTheTransferInFlightFinish() async throws {
    try await withOrigin { origin in
      let gate = ReloadGate()
      await origin.setHandler("/slow.json") { _ in
        await gate.wait()
        return .data(Data(#"{"v": 1}"#.utf8), contentType: "application/json")
      }
      // The gate opens however the test ends: the origin's shutdown waits for its handlers.
      try await Self.openingAtTheEnd(gate) {
        try await withEngine([Self.asset("slow", origin)]) { engine, _ in
          await engine.startAutoRefresh()
          await origin.waitForRequests(path: "/slow.json", count: 1)
          let reload = try await engine.apply(
            Self.configuration(engine, [Self.asset("slow", origin, every: 120)]))
          #expect(reload.changed == ["slow"])
          await gate.open()
          try await Self.waitUntil(engine, "slow committed") { statuses in
            statuses.first?.source == .cached
          }
          // The one request finished; nothing was asked again.
          #expect(await origin.requestCount(path: "/slow.json") == 1)
          let slow = try #require(await engine.status("slow"))
          try await Self.waitUntil(engine, "the next check follows the new interval") { statuses in
            guard let s = statuses.first, let checked = s.checkedAt else { return false }
            return s.nextAttemptAt == checked.addingTimeInterval(120)
          }
          #expect(slow.consecutiveFailures == 0)
        }
      }
    }
  }

  @Test func aNewURLCancelsTheTransferInFlightAndFetchesTheNewOne() async throws {
    try await withOrigin { origin in
      let gate = ReloadGate()
      await origin.setHandler("/old.json") { _ in
        await gate.wait()
        return .data(Data(#"{"v": "old"}"#.utf8), contentType: "application/json")
      }
      let newBody = Data(#"{"v": "new"}"#.utf8)
      await origin.setResource("/new.json", body: newBody, contentType: "application/json")
      try await Self.openingAtTheEnd(gate) {
        try await withEngine([Self.asset("x", origin, path: "/old.json")]) { engine, _ in
          await engine.startAutoRefresh()
          await origin.waitForRequests(path: "/old.json", count: 1)
          _ = try await engine.apply(
            Self.configuration(engine, [Self.asset("x", origin, path: "/new.json")]))
          // Without the cancel the old transfer would hold the asset until the gate opens.
          try await Self.waitUntil(engine, "x fetched from the new URL") { statuses in
            statuses.first?.source == .cached
          }
          #expect(try await engine.data("x") == newBody)
          #expect(await origin.requestCount(path: "/new.json") == 1)
        }
      }
    }
  }

  /// Runs `body`, then opens `gate` whether it returned or threw.
  static func openingAtTheEnd(_ gate: ReloadGate, _ body: () async throws -> Void) async throws {
    do {
      try await body()
    } catch {
      await gate.open()
      throw error
    }
    await gate.open()
  }

  @Test func aSettingOnlyARestartChangesIsRefusedAndNothingChanges() async throws {
    try await withOrigin { origin in
      await origin.setResource("/a.json", body: Data("{}".utf8), contentType: "application/json")
      try await withEngine([Self.asset("a", origin)]) { engine, _ in
        var new = Self.configuration(engine, [Self.asset("a", origin), Self.asset("b", origin)])
        new.appVersion = "2.0.0"
        new.maxConcurrentTransfers = 9
        do throws(ConfigurationReloadError) {
          _ = try await engine.apply(new)
          Issue.record("the reload was accepted")
        } catch {
          guard case .needsRestart(let error) = error else {
            Issue.record("unexpected \(error)")
            return
          }
          #expect(error.problems.map(\.path) == ["appVersion", "maxConcurrentTransfers"])
          #expect(error.lines.allSatisfy { $0.contains("changes only at a restart") })
        }
        #expect(await engine.statuses().map(\.id) == ["a"])
        #expect(engine.configuration.appVersion == "1.0.0")
      }
    }
  }

  @Test func reloadsAskedTogetherRunOneAtATime() async throws {
    try await withOrigin { origin in
      let ids = ["a", "b", "c"]
      for id in ids {
        await origin.setResource(
          "/\(id).json", body: Data("{}".utf8), contentType: "application/json")
      }
      try await withEngine([Self.asset("a", origin), Self.asset("b", origin)]) { engine, _ in
        let one = Self.configuration(engine, [Self.asset("a", origin), Self.asset("b", origin)])
        let two = Self.configuration(engine, [Self.asset("a", origin), Self.asset("c", origin)])
        let events = await engine.events()
        let count = 20
        let results = try await withThrowingTaskGroup(of: ConfigurationReload.self) { group in
          for n in 0..<count {
            group.addTask { try await engine.apply(n % 2 == 0 ? two : one) }
          }
          return try await group.reduce(into: []) { $0.append($1) }
        }
        // Each reload started from the one before: a swap of b and c, or nothing.
        for result in results {
          #expect(result.added.count == result.removed.count, "\(result)")
          #expect(result.added.count <= 1, "\(result)")
        }
        let configured = engine.configuration.assets.map(\.id)
        #expect(await engine.statuses().map(\.id) == configured)
        // Each reload's snapshot shows exactly what it applied: none ran inside another.
        let shown = await Self.reloadSnapshots(events, count: count)
        #expect(shown.count == count)
        for (snapshot, reload) in shown {
          #expect(reload.added.allSatisfy(snapshot.contains), "\(reload) but \(snapshot)")
          #expect(!reload.removed.contains { snapshot.contains($0) }, "\(reload) but \(snapshot)")
        }
      }
    }
  }

  /// The asset ids of the snapshot each reload published, with the ids its log line says it
  /// added and removed, for the first `count` reloads (bounded wait).
  static func reloadSnapshots(_ events: AsyncStream<EngineEvent>, count: Int) async
    -> [(snapshot: [String], reload: (added: [String], removed: [String]))]
  {
    await withTaskGroup(of: [([String], ([String], [String]))].self) { group in
      group.addTask {
        var found: [([String], ([String], [String]))] = []
        var last: [String] = []
        for await event in events {
          switch event {
          case .snapshot(let snapshot): last = snapshot.assets.map(\.id)
          case .log(let entry) where entry.message.hasPrefix("configuration reloaded: "):
            found.append(
              (last, (Self.ids(entry.message, "added"), Self.ids(entry.message, "removed"))))
            if found.count == count { return found }
          default: break
          }
        }
        return found
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(30))
        return []
      }
      let first = await group.next() ?? []
      group.cancelAll()
      return first.map { (snapshot: $0.0, reload: (added: $0.1.0, removed: $0.1.1)) }
    }
  }

  /// The ids in `1 added (x)` of a reload's summary.
  private static func ids(_ summary: String, _ word: String) -> [String] {
    guard let range = summary.range(of: " \(word) (") else { return [] }
    let rest = summary[range.upperBound...]
    guard let end = rest.firstIndex(of: ")") else { return [] }
    return rest[..<end].split(separator: ", ").map(String.init)
  }

  @Test func aReloadAfterShutdownIsRefused() async throws {
    try await withOrigin { origin in
      let engine = try makeTestEngine(
        [Self.asset("a", origin)],
        cache: FileManager.default.temporaryDirectory.appendingPathComponent(
          "aw-reload-\(UUID().uuidString)"))
      await engine.start()
      await engine.shutdown()
      await #expect(throws: ConfigurationReloadError.shuttingDown) {
        try await engine.apply(Self.configuration(engine, []))
      }
      try? FileManager.default.removeItem(at: engine.configuration.cacheDirectory)
    }
  }
}

/// Holds origin handlers until opened.
actor ReloadGate {
  private var isOpen = false
  private var waiters: [CheckedContinuation<Void, Never>] = []

  func wait() async {
    guard !isOpen else { return }
    await withCheckedContinuation { waiters.append($0) }
  }

  func open() {
    isOpen = true
    for waiter in waiters { waiter.resume() }
    waiters = []
  }
}
