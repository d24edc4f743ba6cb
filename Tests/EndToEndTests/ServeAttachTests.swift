import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssets
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `assetwatch serve` with dashboards attached to it: the rows, the progress and the fetching
/// all belong to the serve process.
@Suite(.enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
struct ServeAttachTests {
  /// Runs `body` with a fixture and a serve process on it that finished its first round.
  static func withServe(
    prepare: (DashboardFixture) async throws -> Void = { _ in },
    _ body: (DashboardFixture, ServeProcess) async throws -> Void
  ) async throws {
    let fixture = try await DashboardFixture.start()
    var serve: ServeProcess?
    do {
      try await prepare(fixture)
      let process = try ServeProcess(folder: fixture.folder.url)
      serve = process
      try await process.waitForState("flags fetched by serve") { snapshot in
        snapshot.assets.first { $0.id == "flags" }?.source == .cached
      }
      try await body(fixture, process)
    } catch {
      _ = await serve?.stop(signal: SIGKILL)
      await fixture.shutdown()
      throw error
    }
    _ = await serve?.stop()
    await fixture.shutdown()
  }

  static func attach(_ fixture: DashboardFixture, extra: [String] = []) async throws -> TmuxSession
  {
    try await TmuxSession.start(
      [BinaryRunner.binary, "watch", "--attach", "cache"] + extra, width: 100, height: 30,
      cwd: fixture.folder.url, environment: ["NO_COLOR": ""])
  }

  /// Requests per path of the assets that are not retried on their own (`broken` answers 503, so
  /// serve retries it with backoff whenever it likes: its count says nothing about the watcher).
  static func requestCounts(_ origin: LoopbackOrigin) async -> [Int] {
    var counts: [Int] = []
    for path in ["/flags.json", "/catalog.json", "/model.bin"] {
      counts.append(await origin.requestCount(path: path))
    }
    return counts
  }

  @Test func theAttachedDashboardShowsServesRowsAndRMakesServeFetch() async throws {
    try await Self.withServe { fixture, serve in
      try await serve.waitForState("model fetched") {
        $0.assets.first { $0.id == "model" }?.source == .cached
      }
      let before = await Self.requestCounts(fixture.origin)
      let tmux = try await Self.attach(fixture)
      defer { Task { await tmux.kill() } }
      try await tmux.waitForTable(fresh: ["flags", "model"])
      // The header says where the rows come from.
      try await tmux.waitFor("attached to ")
      // The dashboard has no engine of its own: the origin saw nothing from it.
      #expect(await Self.requestCounts(fixture.origin) == before)

      await fixture.origin.setGeneratedResource(
        "/model.bin", content: GeneratedBytes(length: DashboardFixture.modelSize, seed: 2),
        bytesPerSecond: 16 << 10)
      try await tmux.press("j", "j")
      try await tmux.waitForSelection("model")
      try await tmux.press("r")
      try await tmux.waitFor("model DOWNLOADING with progress, from serve") { screen in
        let row = screen.row("model") ?? ""
        return row.contains("DOWNLOADING") && row.contains("%")
      }
      let after = await Self.requestCounts(fixture.origin)
      #expect(after[2] > before[2], "serve fetched the model")
      #expect(after[0] == before[0], "only the model was refreshed")
      #expect(serve.output.contains("model"), "serve logged the work: \(serve.output)")
      await tmux.kill()
    }
  }

  /// Protocol 2 sends changes without the history: the attached dashboard still shows every
  /// column, and its detail pane asks for the history and keeps it current as serve checks.
  @Test func theAttachedDashboardShowsEveryColumnAndTheDetailPanesHistory() async throws {
    try await Self.withServe { fixture, serve in
      var flags: AssetStatus?
      try await serve.waitForState("flags known to serve") { snapshot in
        flags = snapshot.assets.first { $0.id == "flags" }
        return flags?.version != nil && flags?.etag != nil
      }
      let tmux = try await TmuxSession.start(
        [BinaryRunner.binary, "watch", "--attach", "cache"], width: 160, height: 45,
        cwd: fixture.folder.url, environment: ["NO_COLOR": ""])
      defer { Task { await tmux.kill() } }
      let screen = try await tmux.waitForTable(fresh: ["flags"])
      let header = screen.lines.first { $0.contains("STATE") && $0.contains("VERSION") } ?? ""
      for title in ["ID", "STATE", "VERSION", "TARGET", "ETAG", "CHECKED", "NEXT", "SIZE"] {
        #expect(header.contains(title), "\(title) in \(header)")
      }
      let row = screen.row("flags") ?? ""
      #expect(row.contains(flags?.version ?? "?"), "\(row)")
      #expect(row.contains(String(TerminalText.sanitize(flags?.etag ?? "?").prefix(8))), "\(row)")
      // The detail pane: its history comes from serve on request.
      try await tmux.waitForSelection("flags")
      try await tmux.press("Enter")
      let opened = try await tmux.waitFor("the history of flags") { screen in
        screen.lines.contains { $0.contains("History") }
          && screen.lines.contains { $0.contains("updated") }
      }
      let checksBefore = opened.lines.filter { $0.contains("notModified") }.count
      // A check by serve (the origin answers 304) appears in the pane while it is open.
      try await tmux.press("r")
      try await tmux.waitFor("one more notModified line in the history") { screen in
        screen.lines.filter { $0.contains("notModified") }.count > checksBefore
      }
      await tmux.kill()
    }
  }

  @Test func killingServeSaysDisconnectedAndARestartReconnects() async throws {
    try await Self.withServe { fixture, serve in
      let tmux = try await Self.attach(fixture)
      defer { Task { await tmux.kill() } }
      try await tmux.waitForTable()
      // A crash, not a shutdown: the socket file stays behind, stale.
      _ = await serve.stop(signal: SIGKILL)
      try await tmux.waitFor("disconnected in the header, the table kept") { screen in
        (screen.lines.first ?? "").contains("disconnected")
          && DashboardFixture.ids.allSatisfy { screen.row($0) != nil }
      }
      let restarted = try ServeProcess(folder: fixture.folder.url)
      defer { Task { _ = await restarted.stop() } }
      try await tmux.waitFor("reconnected") { screen in
        !(screen.lines.first ?? "").contains("disconnected") && screen.row("flags") != nil
      }
      // The restarted engine answers commands from the dashboard.
      try await tmux.press("p")
      try await tmux.waitFor("PAUSED")
      #expect(await restarted.stop() == 0)
      await tmux.kill()
    }
  }

  @Test func plainWatchOnTheSameConfigAttachesInsteadOfStartingASecondEngine() async throws {
    try await Self.withServe { fixture, serve in
      try await serve.waitForState("model fetched") {
        $0.assets.first { $0.id == "model" }?.source == .cached
      }
      let before = await Self.requestCounts(fixture.origin)
      let tmux = try await fixture.startDashboard()
      defer { Task { await tmux.kill() } }
      try await tmux.waitForTable(fresh: ["flags", "model"])
      try await tmux.press("p")
      try await serve.waitForState("serve paused by the dashboard") { $0.info.autoRefreshPaused }
      #expect(await Self.requestCounts(fixture.origin) == before, "no second engine fetched")
      await tmux.kill()
    }
  }

  @Test func twoWatchersAtOnceSeeTheSameEngine() async throws {
    try await Self.withServe { fixture, _ in
      let first = try await Self.attach(fixture)
      let second = try await Self.attach(fixture)
      defer {
        Task {
          await first.kill()
          await second.kill()
        }
      }
      try await first.waitForTable()
      try await second.waitForTable()
      let paused: (TmuxScreen) -> Bool = { ($0.lines.first ?? "").contains("PAUSED") }
      let before = try await first.screen()
      #expect(!paused(before), "not paused before the key: \(before.text)")
      // A pause from either watcher shows in both headers, and so does the resume: each wait
      // below starts from the opposite state, so none can pass on its first look.
      try await first.press("p")
      try await first.waitFor("paused in the first watcher", paused)
      try await second.waitFor("paused in the second watcher", paused)
      try await second.press("p")
      try await first.waitFor("resumed in the first watcher") { !paused($0) }
      try await second.waitFor("resumed in the second watcher") { !paused($0) }
      await first.kill()
      await second.kill()
    }
  }

  @Test func statusAndRefreshAttachAskTheServeProcess() async throws {
    try await Self.withServe { fixture, _ in
      let status = try await BinaryRunner.run(
        ["status", "--attach", "cache", "--json"], cwd: fixture.folder.url)
      #expect(
        status.stdout.contains(#""id" : "flags""#) || status.stdout.contains(#""id":"flags""#))
      let before = await fixture.origin.requestCount(path: "/catalog.json")
      let refresh = try await BinaryRunner.run(
        ["refresh", "--attach", "cache", "catalog"], cwd: fixture.folder.url)
      #expect(refresh.status == 0, "\(refresh.stderr)")
      #expect(refresh.stdout.hasPrefix("catalog  "))
      #expect(await fixture.origin.requestCount(path: "/catalog.json") == before + 1)
    }
  }

  /// Skipped (and reported so) on a machine where `nobody` cannot run the binary; under CI it
  /// runs regardless and fails on what is missing.
  @Test(
    .enabled("needs root, setpriv and a binary that nobody (uid 65534) can run") {
      if ExternalTool.isCI { return true }
      return await OtherUser.canStart(BinaryRunner.binary)
    })
  func aWatcherOfAnotherUserIsRefused() async throws {
    // The binary and the folders above it must be reachable for `nobody` to get as far as
    // connecting.
    let help = try OtherUser.command([BinaryRunner.binary, "--help"])
    let canRun = try await ProcessRunner.run(executable: help.executable, help.arguments)
    try #require(
      canRun.status == 0, "nobody cannot run \(BinaryRunner.binary): \(canRun.stderr)")
    try await Self.withServe { fixture, serve in
      chmod(fixture.folder.url.path, 0o755)
      chmod(fixture.folder.url.appendingPathComponent("cache").path, 0o755)
      let status = try OtherUser.command([
        BinaryRunner.binary, "status", "--attach", serve.socketPath,
      ])
      // The socket is 0600: another user cannot even connect.
      let denied = try await ProcessRunner.run(executable: status.executable, status.arguments)
      #expect(denied.status == 1)
      #expect(denied.stderr.contains("cannot connect"), "\(denied.stderr)")
      // Made connectable, the engine still refuses by the peer's credentials (SO_PEERCRED).
      chmod(serve.socketPath, 0o666)
      let refused = try await ProcessRunner.run(executable: status.executable, status.arguments)
      #expect(refused.status == 1)
      #expect(
        refused.stderr.contains("refused") && refused.stderr.contains("uid 65534"),
        "\(refused.stderr)")
      #expect(serve.isRunning)
    }
  }

  @Test func sigtermMidDownloadExitsCleanlyAndKeepsAResumablePartial() async throws {
    try await Self.withServe(prepare: { fixture in
      // Big and slow enough to be caught mid-transfer with more than the resumable minimum.
      await fixture.origin.setGeneratedResource(
        "/model.bin", content: GeneratedBytes(length: 8 << 20, seed: 3), bytesPerSecond: 512 << 10)
    }) { fixture, serve in
      try await serve.waitForState("model mid-download past 1 MiB") { snapshot in
        guard
          case .downloading(let p) = snapshot.assets.first(where: { $0.id == "model" })?.activity
        else { return false }
        return p.receivedBytes > 1 << 20
      }
      #expect(await serve.stop(signal: SIGTERM) == 0, "serve output:\n\(serve.output)")
      let tmp = fixture.folder.url.appendingPathComponent("cache/tmp")
      let part = tmp.appendingPathComponent("model.resume.part").path
      let record = tmp.appendingPathComponent("model.resume.json").path
      #expect(FileManager.default.fileExists(atPath: part))
      #expect(FileManager.default.fileExists(atPath: record))
      #expect(
        !FileManager.default.fileExists(
          atPath: fixture.folder.url.appendingPathComponent("cache/control.sock").path),
        "the socket file is removed on a clean exit")
    }
  }
}

/// `wait --attach`: a deploy script on a server waits on the app's own engine.
@Suite struct WaitAttachTests {
  @Test func waitAttachedConvergesOnTheServingEnginesState() async throws {
    try await ServeAttachTests.withServe { fixture, serve in
      // Both fetched and idle: a check of flags still in flight when `before` is read would be
      // joined by the one `wait` asks for (no new request), on a loaded machine.
      try await serve.waitForState("model and flags fetched, nothing in flight") { snapshot in
        ["model", "flags"].allSatisfy { id in
          let asset = snapshot.assets.first { $0.id == id }
          return asset?.source == .cached && asset?.activity == .idle
        }
      }
      let before = await fixture.origin.requestCount(path: "/flags.json")
      let result = try await BinaryRunner.run(
        ["wait", "flags", "--attach", "cache", "--timeout", "30s"], cwd: fixture.folder.url)
      #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
      #expect(result.stdout.contains("converged"), "\(result.stdout)")
      // The serving engine was asked to check now, and did: the request came from serve.
      #expect(await fixture.origin.requestCount(path: "/flags.json") > before)
    }
  }
}
