import DemoOrigin
import Foundation
import RemoteAssets
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `assetwatch serve` reloading its config: on SIGHUP and on `assetwatch reload`, with a real
/// origin, a download in flight, and a watcher attached over the control socket throughout.
@Suite struct ServeReloadTests {
  /// The fixture's config with `assets` (JSON objects, one per line) in place of its list.
  static func config(
    _ fixture: DashboardFixture, _ assets: [String], cacheDirectory: String = "cache"
  )
    -> String
  {
    """
    {
      "appVersion": "1.0.0",
      "cacheDirectory": "\(cacheDirectory)",
      "defaults": { "refreshEvery": "1h", "ttl": "1h", "maxStale": "2h", "timeout": "20s" },
      "assets": [
        \(assets.joined(separator: ",\n    "))
      ]
    }
    """
  }

  static func flags(_ base: String, every: String = "1h") -> String {
    #"{ "id": "flags", "remote": "\#(base)/flags.json", "bundled": "bundled/flags.json", "format": "json", "essential": true, "refreshEvery": "\#(every)" }"#
  }
  static func catalog(_ base: String) -> String {
    #"{ "id": "catalog", "remote": "\#(base)/catalog.json", "bundled": "bundled/catalog.json", "format": "json" }"#
  }
  static func model(_ base: String) -> String {
    #"{ "id": "model", "remote": "\#(base)/model.bin", "format": "binary", "maxBytes": "64MiB" }"#
  }
  static func extra(_ base: String) -> String {
    #"{ "id": "extra", "remote": "\#(base)/catalog.json", "format": "json" }"#
  }

  /// Polls (bounded) the attached watcher's view until `condition` holds.
  static func waitForWatcher(
    _ client: ControlClient, _ what: String, serve: ServeProcess, timeout: TimeInterval = 60,
    _ condition: (EngineSnapshot) -> Bool
  ) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if let snapshot = client.currentSnapshot(), condition(snapshot) { return }
      try await Task.sleep(for: .milliseconds(50))
    }
    throw ServeTimeout(waitingFor: what, output: serve.output)
  }

  /// Polls (bounded) serve's output until it contains `text`.
  static func waitForOutput(_ serve: ServeProcess, _ text: String, timeout: TimeInterval = 60)
    async throws
  {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if serve.output.contains(text) { return }
      try await Task.sleep(for: .milliseconds(50))
    }
    throw ServeTimeout(waitingFor: "\"\(text)\" in the log", output: serve.output)
  }

  /// A fixture and serve on it, every asset but `model` fetched, and a watcher attached (its
  /// events read so its view stays current).
  static func withServe(
    slowModel: Bool = false,
    _ body: (DashboardFixture, ServeProcess, ControlClient) async throws -> Void
  ) async throws {
    let fixture = try await DashboardFixture.start()
    if slowModel {
      // About 16 s: long enough to reload while it runs.
      await fixture.origin.setGeneratedResource(
        "/model.bin", content: GeneratedBytes(length: DashboardFixture.modelSize, seed: 1),
        bytesPerSecond: 8 << 10)
    }
    var serve: ServeProcess?
    do {
      let process = try ServeProcess(folder: fixture.folder.url)
      serve = process
      try await process.waitForState("flags and catalog fetched by serve") { snapshot in
        ["flags", "catalog"].allSatisfy { id in
          snapshot.assets.first { $0.id == id }?.source == .cached
        }
      }
      let client = try await process.connect()
      let reader = Task { for await _ in client.events {} }
      try await body(fixture, process, client)
      reader.cancel()
      await client.close()
    } catch {
      _ = await serve?.stop(signal: SIGKILL)
      await fixture.shutdown()
      throw error
    }
    let status = await serve?.stop()
    #expect(status == 0, "serve output:\n\(serve?.output ?? "")")
    await fixture.shutdown()
  }

  @Test func sighupAppliesTheNewConfigWhileADownloadRunsAndTheWatcherStays() async throws {
    try await Self.withServe(slowModel: true) { fixture, serve, client in
      let base = fixture.origin.baseURL
      try await Self.waitForWatcher(client, "model downloading", serve: serve) { snapshot in
        if case .downloading = snapshot.assets.first(where: { $0.id == "model" })?.activity {
          return true
        }
        return false
      }
      let flagsRequests = await fixture.origin.requestCount(path: "/flags.json")
      // catalog and broken removed, extra added, flags' interval changed; model as it was.
      fixture.folder.write(
        "assets.json",
        Self.config(
          fixture, [Self.flags(base, every: "2h"), Self.model(base), Self.extra(base)]))
      serve.signal(SIGHUP)
      try await Self.waitForWatcher(client, "the new asset list", serve: serve) { snapshot in
        snapshot.assets.map(\.id) == ["flags", "model", "extra"]
      }
      try await Self.waitForOutput(
        serve,
        "configuration reloaded: 1 added (extra), 2 removed (catalog, broken), 1 changed (flags)")
      // The download in flight went on to the end: one request for the model, ever.
      try await Self.waitForWatcher(client, "model and extra cached", serve: serve) { snapshot in
        ["model", "extra"].allSatisfy { id in
          snapshot.assets.first { $0.id == id }?.source == .cached
        }
      }
      #expect(await fixture.origin.requestCount(path: "/model.bin") == 1)
      // flags was not fetched again: its copy and schedule were kept (a longer interval).
      #expect(await fixture.origin.requestCount(path: "/flags.json") == flagsRequests)
      // The removed asset's copy stays on disk.
      #expect(fixture.hasCacheEntry("catalog"))
      #expect(serve.isRunning)
    }
  }

  @Test func aBadConfigIsLoggedWithFileLineAndFieldAndTheRunningOneStays() async throws {
    try await Self.withServe { fixture, serve, client in
      let base = fixture.origin.baseURL
      try await Self.waitForWatcher(client, "the watcher's first snapshot", serve: serve) {
        $0.assets.count == DashboardFixture.ids.count
      }
      let before = client.currentSnapshot()?.assets.map(\.id)
      // Line 8: the second asset's ttl.
      let bad = Self.config(
        fixture,
        [
          Self.flags(base),
          #"{ "id": "catalog", "remote": "\#(base)/catalog.json", "ttl": "soon" }"#,
        ])
      fixture.folder.write("assets.json", bad)
      let line = bad.split(separator: "\n", omittingEmptySubsequences: false)
        .firstIndex { $0.contains("\"soon\"") }.map { $0 + 1 }
      serve.signal(SIGHUP)
      try await Self.waitForOutput(serve, "assets.json:\(line ?? 0): assets[1].ttl:")
      try await Self.waitForOutput(serve, "the configuration was not reloaded")
      #expect(serve.isRunning)
      // `reload` says the same and exits 2; nothing changed.
      let result = try await BinaryRunner.run(
        ["reload", "--attach", "cache"], cwd: fixture.folder.url)
      #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
      #expect(
        result.stderr.contains("assets.json:\(line ?? 0): assets[1].ttl:"), "\(result.stderr)")
      #expect(client.currentSnapshot()?.assets.map(\.id) == before)
    }
  }

  @Test func aSettingOnlyARestartChangesIsRefusedNamingItsLine() async throws {
    try await Self.withServe { fixture, serve, client in
      let base = fixture.origin.baseURL
      fixture.folder.write(
        "assets.json",
        Self.config(
          fixture, [Self.flags(base), Self.catalog(base), Self.extra(base)],
          cacheDirectory: "elsewhere"))
      let result = try await BinaryRunner.run(
        ["reload", "--attach", "cache"], cwd: fixture.folder.url)
      #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
      #expect(
        result.stderr.contains("assets.json:3: cacheDirectory: changes only at a restart"),
        "\(result.stderr)")
      #expect(client.currentSnapshot()?.assets.contains { $0.id == "extra" } == false)
      #expect(serve.output.contains("assets.json:3: cacheDirectory: changes only at a restart"))
    }
  }

  @Test func reloadSaysWhatChangedAndExits0() async throws {
    try await Self.withServe { fixture, serve, client in
      let base = fixture.origin.baseURL
      fixture.folder.write(
        "assets.json",
        Self.config(
          fixture,
          [Self.flags(base), Self.catalog(base), Self.model(base), Self.extra(base)]))
      let result = try await BinaryRunner.run(
        ["reload", "--attach", "cache"], cwd: fixture.folder.url)
      #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
      // broken was dropped from the list.
      #expect(
        result.stdout == "reloaded assets.json: 1 added (extra), 1 removed (broken)\n",
        "\(result.stdout)")
      try await Self.waitForWatcher(client, "extra shown", serve: serve) { snapshot in
        snapshot.assets.map(\.id) == ["flags", "catalog", "model", "extra"]
      }
      // Again, unchanged: nothing to do.
      let again = try await BinaryRunner.run(
        ["reload", "--attach", "cache"], cwd: fixture.folder.url)
      #expect(again.stdout == "reloaded assets.json: no change\n", "\(again.stdout)")
    }
  }

  @Test func reloadWithNobodyServingExits1() async throws {
    let folder = Scratch()
    defer { folder.remove() }
    let result = try await BinaryRunner.run(
      ["reload", "--attach", folder.url.appendingPathComponent("control.sock").path],
      cwd: folder.url)
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains("cannot reach the engine"), "\(result.stderr)")
  }

  @Test func aHangupDuringShutdownChangesNothing() async throws {
    let fixture = try await DashboardFixture.start()
    defer { Task { await fixture.shutdown() } }
    let serve = try ServeProcess(folder: fixture.folder.url)
    let client = try await serve.connect()
    await client.close()
    serve.signal(SIGTERM)
    // Hang-ups all through the shutdown (bounded): each is refused or finds nothing to do.
    let deadline = Date().addingTimeInterval(30)
    while serve.isRunning, Date() < deadline {
      serve.signal(SIGHUP)
      try await Task.sleep(for: .milliseconds(5))
    }
    let status = await serve.stop()
    #expect(status == 0, "serve output:\n\(serve.output)")
    #expect(!FileManager.default.fileExists(atPath: serve.socketPath), "\(serve.output)")
  }
}
