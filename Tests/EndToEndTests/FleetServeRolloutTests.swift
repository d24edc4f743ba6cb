import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

/// The issue's scenario end to end: three `assetwatch serve --metrics` engines, each fed by its
/// own loopback origin, scraped every second by a real Prometheus. A manifest publishes flags 2;
/// two engines converge, the third's origin fails the download, and the fleet view (in tmux)
/// shows the two converged and flags the third as stuck; `--json` matches the API.
@Suite(
  .enabled(
    if: ExternalTool.shouldRun("prometheus"),
    "needs prometheus (apt-get install -y prometheus); skipped, not passed"),
  .enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
struct FleetServeRolloutTests {
  static let selector = #"{job="assets"}"#

  /// The engine's config: the origin's manifest, checked (with the asset) every second.
  static func config(_ base: String) -> String {
    """
    { "appVersion": "1", "cacheDirectory": "cache", "manifest": "\(base)/manifest.json",
      "defaults": { "refreshEvery": "1s", "ttl": "1m", "timeout": "5s" },
      "assets": [ { "id": "flags", "remote": "\(base)/flags-1.bin", "format": "binary" } ] }
    """
  }

  /// Publishes `release` on `origin`: the flags bytes (or a 503 for them when `failing`) and a
  /// manifest naming them with their size and hash (the engine labels bytes with the manifest's
  /// version only when the hash matches).
  static func publish(release: Int, on origin: LoopbackOrigin, failing: Bool = false) async {
    let content = GeneratedBytes(length: 512, seed: UInt64(release))
    if failing {
      await origin.setHandler("/flags-\(release).bin") { _ in
        .text("upstream unavailable", status: 503)
      }
    } else {
      await origin.setGeneratedResource("/flags-\(release).bin", content: content)
    }
    let manifest = """
      { "version": "rollout-\(release)", "assets": [
        { "id": "flags", "url": "\(origin.baseURL)/flags-\(release).bin", "version": "\(release)",
          "size": 512, "sha256": "\(content.sha256Hex())" } ] }
      """
    await origin.setResource(
      "/manifest.json", body: Data(manifest.utf8), contentType: "application/json")
  }

  /// Runs `assetwatch serve --metrics` on a free port against `origin`; `body` gets the
  /// `instance` Prometheus will label it with.
  private func withServe<T>(
    _ origin: LoopbackOrigin, _ body: (String, RunningProcess) async throws -> T
  ) async throws -> T {
    try await withTemporaryDirectory { dir in
      _ = try dir.file("assets.json", Self.config(origin.baseURL))
      let port = freeLoopbackPort()
      return try await AssetWatchBinary.withRunning(
        ["serve", "--config", "assets.json", "--metrics", "127.0.0.1:\(port)"], cwd: dir.url
      ) { serve in try await body("127.0.0.1:\(port)", serve) }
    }
  }

  @Test func aRolloutAcrossThreeEnginesConvergesTwoAndFlagsTheFailingOne() async throws {
    try await withOrigin { a in
      try await withOrigin { b in
        try await withOrigin { c in
          for origin in [a, b, c] { await Self.publish(release: 1, on: origin) }
          try await withServe(a) { first, _ in
            try await withServe(b) { second, _ in
              try await withServe(c) { third, serve in
                try await rollOut(
                  instances: [first, second, third], origins: [a, b, c], stuckServe: serve)
              }
            }
          }
        }
      }
    }
  }

  private func rollOut(instances: [String], origins: [LoopbackOrigin], stuckServe: RunningProcess)
    async throws
  {
    try await withPrometheus(targets: instances) { prometheus in
      // Every engine serves flags 1 and Prometheus has scraped it.
      try await prometheus.waitUntil(#"remote_assets_asset_info{job="assets",version="1"}"#) {
        $0.count == 3
      }
      let tmux = try await TmuxSession.start(
        [
          AssetWatchBinary.path, "fleet", "--prometheus", prometheus.baseURL,
          "--selector", Self.selector, "--interval", "1",
        ], width: 120, height: 24, cwd: FileManager.default.temporaryDirectory)
      defer { Task { await tmux.kill() } }
      try await tmux.waitFor("flags 3/3", timeout: 120)

      // Release 2: the first two engines take it; the third's origin fails the download.
      await Self.publish(release: 2, on: origins[0])
      await Self.publish(release: 2, on: origins[1])
      await Self.publish(release: 2, on: origins[2], failing: true)
      let screen = try await tmux.waitFor(
        "two converged on 2, one stuck", settled: true, timeout: 120
      ) { screen in
        screen.text.contains("flags 2/3") && screen.text.contains("1 stuck")
      }
      let rows = screen.lines.filter { $0.dropFirst().hasPrefix("127.0.0.1") }
      #expect(rows.count == 3, "\(screen.text)")
      for instance in instances {
        let shown = rows.filter { $0.contains(instance + " ") }.count
        #expect(shown == 1, "\(instance) on \(shown) rows:\n\(screen.text)")
      }
      for line in rows {
        if line.contains(instances[2]) {
          #expect(line.hasPrefix("!") && line.contains("STUCK"), "\(line)\n\(stuckServe.output)")
        } else {
          #expect(line.contains("converged") && !line.hasPrefix("!"), "\(line)")
          #expect(line.contains(" 2 "), "serves release 2: \(line)")
        }
      }
      try await tmux.press("q")
      try await tmux.waitUntil("the fleet view exits on q") {
        guard let text = try? await tmux.capture() else { return true }
        return !text.contains("AssetWatch fleet")
      }
      try await FleetAPIComparison.expectJSONMatchesTheAPI(
        prometheus, selector: Self.selector, stuckInstance: instances[2])
    }
  }
}
