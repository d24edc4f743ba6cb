import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

/// Issue 18's fleet scenario end to end: three `assetwatch serve --metrics` engines scraped by a
/// real Prometheus take release 2; on one of them a health check runs `assetwatch reject`. That
/// engine goes back to release 1, and `fleet --json` counts it rejected (not behind, not stuck)
/// and the other two on target, and so does the fleet view in tmux.
@Suite(
  .enabled(
    if: ExternalTool.shouldRun("prometheus"),
    "needs prometheus (apt-get install -y prometheus); skipped, not passed"))
struct FleetServeRejectRolloutTests {
  static let selector = #"{job="assets"}"#

  /// The engine's config: the origin's manifest, checked (with the asset) every second.
  static func config(_ base: String, instance: String) -> String {
    """
    { "appVersion": "1", "cacheDirectory": "cache", "manifest": "\(base)/manifest.json",
      "instance": "\(instance)",
      "defaults": { "refreshEvery": "1s", "ttl": "1m", "timeout": "5s" },
      "assets": [ { "id": "flags", "remote": "\(base)/flags-1.bin", "format": "binary" } ] }
    """
  }

  /// Runs `assetwatch serve --metrics` on a free port against `origin`; `body` gets the
  /// `instance` Prometheus labels it with and the engine's folder.
  private func withServe<T>(
    _ origin: LoopbackOrigin, id: String, _ body: (String, URL) async throws -> T
  ) async throws -> T {
    try await withTemporaryDirectory { dir in
      _ = try dir.file("assets.json", Self.config(origin.baseURL, instance: id))
      let port = freeLoopbackPort()
      return try await AssetWatchBinary.withRunning(
        ["serve", "--config", "assets.json", "--metrics", "127.0.0.1:\(port)"], cwd: dir.url
      ) { _ in try await body("127.0.0.1:\(port)", dir.url) }
    }
  }

  @Test func oneEngineRejectsTheNewVersionAndTheFleetCountsItRejected() async throws {
    try await withOrigin { a in
      try await withOrigin { b in
        try await withOrigin { c in
          for origin in [a, b, c] { await FleetServeRolloutTests.publish(release: 1, on: origin) }
          try await withServe(a, id: "fleet-a") { first, _ in
            try await withServe(b, id: "fleet-b") { second, _ in
              try await withServe(c, id: "fleet-c") { third, folder in
                try await rejectOnOne(
                  instances: [first, second, third], origins: [a, b, c], canary: folder)
              }
            }
          }
        }
      }
    }
  }

  private func fleet(_ prometheus: PrometheusServer) async throws -> [String: Any] {
    let result = try await AssetWatchBinary.run([
      "fleet", "--json", "--prometheus", prometheus.baseURL, "--selector", Self.selector,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    return try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
  }

  private func rejectOnOne(instances: [String], origins: [LoopbackOrigin], canary: URL)
    async throws
  {
    try await withPrometheus(targets: instances) { prometheus in
      try await prometheus.waitUntil(#"remote_assets_asset_info{job="assets",version="1"}"#) {
        $0.count == 3
      }
      for origin in origins { await FleetServeRolloutTests.publish(release: 2, on: origin) }
      try await prometheus.waitUntil(#"remote_assets_asset_info{job="assets",version="2"}"#) {
        $0.count == 3
      }
      let before = try await fleet(prometheus)
      #expect(before["rejected"] as? Int == 0)

      // The health check on the third instance rejects release 2, through its running engine.
      let reject = try await AssetWatchBinary.run(
        [
          "reject", "flags", "--reason", "health check failed", "--attach",
          canary.appendingPathComponent("assets.json").path,
        ], cwd: canary)
      #expect(reject.status == 0, "\(reject.stdout)\(reject.stderr)")
      try await prometheus.waitUntil(
        #"remote_assets_asset_rejected{job="assets",asset="flags",version="2"}"#
      ) { $0.count == 1 && $0.first?.labels["instance"] == instances[2] }
      try await prometheus.waitUntil(
        #"remote_assets_asset_info{job="assets",asset="flags",version="1"}"#
      ) { $0.count == 1 }

      let after = try await fleet(prometheus)
      #expect(after["rejected"] as? Int == 1, "\(after)")
      #expect(after["stuck"] as? Int == 0, "\(after)")
      let rollout = try #require((after["rollouts"] as? [[String: Any]])?.first)
      #expect(rollout["asset"] as? String == "flags")
      #expect(rollout["target"] as? String == "2")
      #expect(rollout["instances"] as? Int == 3)
      #expect(rollout["converged"] as? Int == 2)
      #expect(rollout["rejected"] as? Int == 1)
      for word in ["behind", "stuck", "down", "unknown", "heldBack"] {
        #expect(rollout[word] as? Int == 0, "\(word): \(rollout)")
      }
      let rows = try #require(after["rows"] as? [[String: Any]])
      #expect(rows.count == 3)
      let first = try #require(rows.first)
      #expect(first["instance"] as? String == instances[2], "the rejected row comes first")
      #expect(first["rollout"] as? String == "rejected")
      #expect(first["rejectedVersion"] as? String == "2")
      #expect(first["version"] as? String == "1")
      #expect(rows.dropFirst().allSatisfy { $0["rollout"] as? String == "converged" })

      // The fleet view says so too: two of three on target, the rejection counted in the header,
      // the rejected row first and flagged.
      guard TmuxCommandRunner.isEnabled else { return }
      let tmux = try await TmuxSession.start(
        [
          AssetWatchBinary.path, "fleet", "--prometheus", prometheus.baseURL,
          "--selector", Self.selector, "--interval", "1",
        ], width: 120, height: 24, cwd: FileManager.default.temporaryDirectory)
      defer { Task { await tmux.kill() } }
      // The header's counts and the rows of one whole frame (settled: not half drawn).
      let rejectedInstance = instances[2]
      let screen = try await tmux.waitFor(
        "two on target, one rejected, its row", settled: true, timeout: 120
      ) {
        $0.text.contains("flags 2/3") && $0.text.contains("1 rejected")
          && $0.lines.contains { $0.contains(rejectedInstance) }
      }
      let rejectedRow = screen.lines.first { $0.contains(rejectedInstance) } ?? ""
      #expect(rejectedRow.hasPrefix("!") && rejectedRow.contains("REJECTED"), "\(screen.text)")
      try await tmux.press("q")
    }
  }
}
