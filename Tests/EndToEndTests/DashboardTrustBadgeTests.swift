import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

/// The trust badge while the repository misbehaves (issue 37), as an operator sees it: the real
/// binary in tmux, started over a cache whose metadata folder verified the signed demo's first
/// release, while the repository answers with a 5 MiB `timestamp.json`, then while nothing
/// answers at all. Either way the header shows the signed metadata in force (`signed r1 exp
/// …`), not `unverified`, and says the repository is failing and how.
@Suite struct DashboardTrustBadgeTests {
  /// A config following the signed demo's `feature-flags` target at `base`.
  static func config(base: String) -> String {
    """
    { "appVersion": "1.0", "cacheDirectory": "cache",
      "defaults": { "refreshEvery": "1h", "timeout": "10s" },
      "tuf": { "metadataURL": "\(base)/metadata/", "targetsURL": "\(base)/targets/",
               "root": "root.json" },
      "assets": [ { "id": "feature-flags", "format": "json" } ] }
    """
  }

  /// Starts the dashboard on `config` in tmux and waits for the header's badge and failure.
  func expectBadge(_ config: String, in dir: TemporaryDirectory, failure words: String)
    async throws
  {
    _ = try dir.file("watch.json", config)
    let tmux = try await TmuxSession.start(
      [AssetWatchBinary.path, "watch", "--config", "watch.json"], width: 200, height: 30,
      cwd: dir.url)
    do {
      let screen = try await tmux.waitFor("the badge and the repository's failure") {
        $0.lines.first?.contains("repository failing: ") == true
      }
      let header = screen.lines.first ?? ""
      #expect(header.contains("signed r1 exp "), "\(header)")
      #expect(!header.contains("unverified"), "\(header)")
      #expect(header.contains(words), "\(header)")
      // The last good copy still serves (its row may be checking or failing meanwhile).
      #expect(screen.row("feature-flags")?.contains("MISSING") == false, "\(screen.text)")
    } catch {
      await tmux.kill()
      throw error
    }
    await tmux.kill()
  }

  @Test func theBadgeShowsTheMetadataInForceWhileTheRepositoryFails() async throws {
    let simulation = try await RolloutSimulation.start(
      releaseInterval: nil, modelBytesPerSecond: nil, signed: true)
    do {
      try await withTemporaryDirectory { dir in
        try #require(await simulation.trustedRoot()).write(to: dir.url("root.json"))
        _ = try dir.file("assets.json", Self.config(base: simulation.baseURL))
        // One verified release in the cache's metadata folder.
        let first = try await AssetWatchBinary.run(
          ["refresh", "--config", "assets.json"], cwd: dir.url)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        // Endless data where the timestamp belongs.
        await simulation.origin.setResource(
          "/metadata/timestamp.json", body: Data(repeating: 0x20, count: 5 << 20),
          contentType: "application/json")
        try await expectBadge(
          Self.config(base: simulation.baseURL), in: dir,
          failure: "repository failing: timestamp.json (the server announced")
        // Nothing listening at all.
        let closed = "http://127.0.0.1:\(freeLoopbackPort())"
        // (The root rotation's probe, `2.root.json`, is the first file asked for.)
        try await expectBadge(
          Self.config(base: closed), in: dir, failure: ".json (connection refused")
      }
    } catch {
      try? await simulation.shutdown()
      throw error
    }
    try await simulation.shutdown()
  }
}
