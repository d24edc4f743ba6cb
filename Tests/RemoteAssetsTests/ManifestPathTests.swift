import AssetWatchTestKit
import Crypto
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The manifest on every path: a refresh of one asset revalidates it first (one conditional
/// request, shared by concurrent callers), so the asset comes from the manifest's URL with its
/// size and hash; the stored manifest is in force right after an offline start; a new target is
/// due at once.
@Suite struct ManifestPathTests {
  func sha(_ data: Data) -> String { SHA256.hash(data: data).hexString }

  let old = Data(#"{"v":"old"}"#.utf8)
  let new = Data(#"{"v":"new"}"#.utf8)

  /// A manifest naming asset `a` at `path` with the hash and size of `body`.
  func manifest(_ version: String, path: String, body: Data, assetVersion: String) -> Data {
    Data(
      """
      {"version":"\(version)","assets":[{"id":"a","url":"\(path)","sha256":"\(sha(body))",\
      "size":\(body.count),"version":"\(assetVersion)"}]}
      """.utf8)
  }

  /// An origin serving the old bytes at `/old.json`, the new ones at `/new.json`, and a manifest
  /// that moves asset `a` to `/new.json`.
  func rolloutOrigin() async throws -> LoopbackOrigin {
    let origin = try await LoopbackOrigin.start()
    await origin.setResource("/old.json", body: old, contentType: "application/json")
    await origin.setResource("/new.json", body: new, contentType: "application/json")
    await origin.setResource(
      "/manifest.json", body: manifest("m2", path: "/new.json", body: new, assetVersion: "v2"),
      contentType: "application/json")
    return origin
  }

  func asset(_ origin: LoopbackOrigin, refresh: RefreshInterval = .every(3600)) -> AssetDefinition {
    AssetDefinition(
      id: "a", remote: URL(string: "\(origin.baseURL)/old.json"), format: .json,
      refresh: refresh, timeout: 30)
  }

  func manifestURL(_ origin: LoopbackOrigin) -> URL {
    URL(string: "\(origin.baseURL)/manifest.json")!
  }

  /// Runs `body` with the rollout origin and a started engine following its manifest over a
  /// fresh cache; shuts both down after.
  func withRolloutEngine(_ body: (LoopbackOrigin, AssetEngine) async throws -> Void)
    async throws
  {
    try await withRolloutEngine(prepare: { _ in }, body)
  }

  /// ``withRolloutEngine(_:)`` after `prepare` changed what the origin serves.
  func withRolloutEngine(
    prepare: (LoopbackOrigin) async -> Void,
    _ body: (LoopbackOrigin, AssetEngine) async throws -> Void
  ) async throws {
    let origin = try await rolloutOrigin()
    defer { Task { try? await origin.shutdown() } }
    await prepare(origin)
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let engine = try makeTestEngine(
      [asset(origin)], cache: dir.url.appendingPathComponent("cache"),
      manifest: manifestURL(origin))
    await engine.start()
    do {
      try await body(origin, engine)
    } catch {
      await engine.shutdown()
      throw error
    }
    await engine.shutdown()
  }

  /// `"refreshEvery": "live"` in the defaults watches local files: an asset a manifest adds
  /// (or moves) to an http URL is checked at the default interval, not polled (and its failures
  /// retried) ten times a second.
  @Test func aLiveDefaultIsNotAppliedToAnAssetTheManifestPutsOnHTTP() async throws {
    let origin = try await rolloutOrigin()
    defer { Task { try? await origin.shutdown() } }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let engine = try makeTestEngine(
      [], cache: dir.url.appendingPathComponent("cache"), manifest: manifestURL(origin)
    ) { $0.assetDefaults.refresh = .live }
    await engine.start()
    #expect(await engine.refresh("a").isUpdated)
    let refresh = await engine.core.records["a"]?.definition.refresh
    #expect(
      refresh == .every(AssetDefaults.standardRefreshSeconds), "\(String(describing: refresh))")
    await engine.shutdown()
  }

  @Test func refreshOfOneAssetFetchesTheManifestsURLNotTheConfigs() async throws {
    try await withRolloutEngine { origin, engine in
      let outcome = await engine.refresh("a")
      #expect(outcome == .updated(version: "v2"), "\(outcome)")
      #expect(await origin.requestCount(path: "/new.json") == 1)
      #expect(await origin.requestCount(path: "/old.json") == 0, "the config's URL is not fetched")
      #expect(try await engine.data("a") == new)
      let status = try #require(await engine.status("a"))
      #expect(status.targetVersion == "v2")
      #expect(!status.isBehindTarget)
    }
  }

  @Test func refreshOfOneAssetChecksTheManifestsHash() async throws {
    try await withRolloutEngine(prepare: { origin in
      // The manifest promises other bytes than /new.json serves.
      await origin.setResource(
        "/manifest.json", body: manifest("m2", path: "/new.json", body: old, assetVersion: "v2"),
        contentType: "application/json")
    }) { origin, engine in
      let outcome = await engine.refresh("a")
      #expect(outcome.failure?.kind == .hashMismatch, "\(outcome)")
      #expect(await engine.status("a")?.isBehindTarget == true)
    }
  }

  /// What a manifest leaves out comes from the config, not from the manifest before it: a
  /// publisher that stops naming a hash and size gets its next version taken, not refused for
  /// the old version's hash.
  @Test func aHashAndSizeTheNextManifestLeavesOutAreNotDemanded() async throws {
    try await withRolloutEngine { origin, engine in
      #expect(await engine.refresh("a") == .updated(version: "v2"))
      let newer = Data(#"{"v":"newer, and longer"}"#.utf8)
      await origin.setResource("/new.json", body: newer, contentType: "application/json")
      await origin.setResource(
        "/manifest.json",
        body: Data(
          #"{"version":"m3","assets":[{"id":"a","url":"/new.json","version":"v3"}]}"#.utf8),
        contentType: "application/json")
      let outcome = await engine.refresh("a")
      // Updated (with no hash named, the bytes are not known to be "v3": no version is claimed).
      #expect(outcome.isUpdated, "\(outcome)")
      let served = try await engine.data("a")
      #expect(served == newer)
    }
  }

  @Test func eachRefreshOfOneAssetCostsOneConditionalManifestRequest() async throws {
    try await withRolloutEngine { origin, engine in
      _ = await engine.refresh("a")
      #expect(await origin.requestCount(path: "/manifest.json") == 1)
      let firstCheck = try #require(await engine.info().manifestCheckedAt)
      #expect(await engine.refresh("a") == .notModified)
      let requests = await origin.requests(path: "/manifest.json")
      #expect(requests.count == 2)
      // The second asks with the manifest's ETag: the origin answers 304 without a body.
      let etag = try #require(await origin.resource(at: "/manifest.json")?.etag)
      #expect(requests.last?.header("If-None-Match") == etag)
      #expect(try #require(await engine.info().manifestCheckedAt) >= firstCheck)
      #expect(await engine.info().manifestVersion == "m2")
    }
  }

  @Test func concurrentRefreshesShareOneManifestFetch() async throws {
    let origin = try await rolloutOrigin()
    defer { Task { try? await origin.shutdown() } }
    let gate = Gate()
    let body = manifest("m2", path: "/new.json", body: new, assetVersion: "v2")
    await origin.setHandler("/manifest.json") { _ in
      await gate.wait()
      return .data(body, contentType: "application/json")
    }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let second = AssetDefinition(
      id: "b", remote: URL(string: "\(origin.baseURL)/old.json"), format: .json, timeout: 30)
    let engine = try makeTestEngine(
      [asset(origin), second], cache: dir.url.appendingPathComponent("cache"),
      manifest: manifestURL(origin))
    await engine.start()
    async let first = engine.refresh("a")
    async let other = engine.refresh("b")
    async let all = engine.refreshManifest()
    await origin.waitForRequests(path: "/manifest.json", count: 1)
    // Both later callers are waiting on the fetch under way before it may finish.
    #expect(await poll { await engine.core.manifestSchedule.waiting == 2 })
    await gate.open()
    let outcomes = await (first, other, all)
    #expect(outcomes.0 == .updated(version: "v2"))
    #expect(outcomes.1.isUpdated)
    #expect(await origin.requestCount(path: "/manifest.json") == 1)
    await engine.shutdown()
  }

  @Test func theStoredManifestIsInForceRightAfterAnOfflineStart() async throws {
    let origin = try await rolloutOrigin()
    defer { Task { try? await origin.shutdown() } }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let cache = dir.url.appendingPathComponent("cache")
    let seed = try makeTestEngine([asset(origin)], cache: cache, manifest: manifestURL(origin))
    await seed.start()
    #expect(await seed.refresh("a").isUpdated)
    await seed.shutdown()
    // No fetchers: nothing can reach the network.
    let engine = try makeTestEngine(
      [asset(origin)], cache: cache, fetchers: [], manifest: manifestURL(origin))
    await engine.start()
    #expect(await engine.info().manifestVersion == "m2")
    #expect(await engine.info().manifestCheckedAt != nil)
    let status = try #require(await engine.status("a"))
    #expect(status.targetVersion == "v2")
    #expect(status.version == "v2")
    #expect(status.remote?.hasSuffix("/new.json") == true)
    await engine.shutdown()
  }

  /// A 304 to a manifest request that carried no validators (no manifest held) is the
  /// server's mistake: an error with backoff, not a success that applies nothing.
  @Test func a304ToTheFirstManifestRequestIsAnError() async throws {
    let origin = try await rolloutOrigin()
    defer { Task { try? await origin.shutdown() } }
    await origin.setHandler("/manifest.json") { _ in .text("", status: 304) }
    try await withTemporaryDirectory { dir in
      try await withEngine([asset(origin)], cache: dir.cache, manifest: manifestURL(origin)) {
        engine in
        await engine.refreshManifest()
        let info = await engine.info()
        #expect(info.manifestCheckedAt == nil)
        let error = try #require(info.manifestError, "a 304 with nothing held counted as checked")
        #expect(error.contains("304"), "\(error)")
      }
    }
  }

  @Test func aNewTargetIsRefreshedAtOnceNotAtTheNextInterval() async throws {
    let origin = try await rolloutOrigin()
    defer { Task { try? await origin.shutdown() } }
    await origin.setResource(
      "/manifest.json", body: manifest("m1", path: "/old.json", body: old, assetVersion: "v1"),
      contentType: "application/json")
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let engine = try makeTestEngine(
      [asset(origin)], cache: dir.url.appendingPathComponent("cache"),
      manifest: manifestURL(origin))
    await engine.start()
    await engine.startAutoRefresh()
    #expect(await poll { await engine.status("a")?.version == "v1" })
    // The rollout: the next check of the asset would be an hour away.
    await origin.setResource(
      "/manifest.json", body: manifest("m2", path: "/new.json", body: new, assetVersion: "v2"),
      contentType: "application/json")
    await engine.refreshManifest()
    #expect(await poll { await engine.status("a")?.version == "v2" })
    #expect(await engine.status("a")?.isBehindTarget == false)
    await engine.shutdown()
  }

  @Test func bundledBytesThatAreTheTargetShowTheTargetVersion() async throws {
    let origin = try await rolloutOrigin()
    defer { Task { try? await origin.shutdown() } }
    await origin.setResource(
      "/manifest.json", body: manifest("m1", path: "/old.json", body: old, assetVersion: "v1"),
      contentType: "application/json")
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    var definition = asset(origin)
    definition.bundled = .bytes(old)
    let engine = try makeTestEngine(
      [definition], cache: dir.url.appendingPathComponent("cache"), manifest: manifestURL(origin))
    await engine.start()
    await engine.refreshManifest()
    let status = try #require(await engine.status("a"))
    #expect(status.source == .bundled)
    #expect(status.version == "v1")
    #expect(!status.isBehindTarget)
    await engine.shutdown()
  }
}

/// Holds callers until opened.
private actor Gate {
  private var isOpen = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  func wait() async {
    if isOpen { return }
    await withCheckedContinuation { waiting.append($0) }
  }

  func open() {
    isOpen = true
    for continuation in waiting { continuation.resume() }
    waiting = []
  }
}

/// Polls `condition` until it holds or `timeout` passes (a condition with a deadline, not a
/// sleep standing in for an event).
private func poll(timeout: Duration = .seconds(45), _ condition: () async -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    if await condition() { return true }
    try? await Task.sleep(for: .milliseconds(20))
  }
  return await condition()
}

/// Assets only a manifest names are read from disk like configured ones, in batches off the
/// actor: all of them after an offline start, and one of another app version is written anew.
@Suite struct ManifestAddedAssetLoadTests {
  /// The batch size of the starts below, and more than two batches of assets.
  static let batch = 16
  static let count = 2 * batch + 7

  static func body(_ n: Int) -> Data { Data(#"{"n":\#(n)}"#.utf8) }

  /// A started engine over `cache` with no fetchers (every copy comes from the disk, through
  /// the stored manifest), reading ``batch`` assets per trip off the actor.
  static func withOfflineEngine(
    cache: URL, manifest: URL, appVersion: String = "1.0.0",
    _ body: (AssetEngine) async throws -> Void
  ) async throws {
    let engine = try makeTestEngine(
      [], cache: cache, appVersion: appVersion, fetchers: [], manifest: manifest)
    await engine.startProgressively(batchSize: batch)
    do {
      try await body(engine)
    } catch {
      await engine.shutdown()
      throw error
    }
    await engine.shutdown()
  }

  @Test func manifestAddedAssetsAreServedFromTheCacheAfterAnOfflineStart() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    var entries: [String] = []
    for n in 0..<Self.count {
      await origin.setResource("/a\(n).json", body: Self.body(n), contentType: "application/json")
      entries.append(#"{"id":"a\#(n)","url":"/a\#(n).json","version":"v\#(n)"}"#)
    }
    await origin.setResource(
      "/manifest.json",
      body: Data(#"{"version":"m1","assets":[\#(entries.joined(separator: ","))]}"#.utf8),
      contentType: "application/json")
    let manifest = URL(string: "\(origin.baseURL)/manifest.json")!
    try await withTemporaryDirectory { dir in
      try await withEngine([], cache: dir.cache, manifest: manifest) { seed in
        let outcomes = await seed.refreshAll()
        #expect(outcomes.count == Self.count)
        #expect(outcomes.allSatisfy { $0.outcome.isUpdated })
      }
      try await Self.withOfflineEngine(cache: dir.cache, manifest: manifest) { engine throws in
        let statuses = await engine.statuses()
        #expect(statuses.count == Self.count)
        #expect(statuses.allSatisfy { $0.source == .cached })
        for n in [0, Self.batch - 1, Self.batch, Self.count - 1] {
          #expect(try await engine.data("a\(n)") == Self.body(n))
          #expect(await engine.status("a\(n)")?.targetVersion == "v\(n)")
        }
      }
      // A new app version: the copies are the old version's; their entries are written anew.
      try await Self.withOfflineEngine(cache: dir.cache, manifest: manifest, appVersion: "2.0.0") {
        engine in
        #expect(await engine.statuses().allSatisfy { $0.source != .cached })
        let entry = try #require(try engine.store.readEntry("a\(Self.count - 1)"))
        #expect(entry.appVersion == "2.0.0")
        #expect(entry.current == nil)
      }
    }
  }
}
