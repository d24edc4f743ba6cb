import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

/// `assetwatch fleet` against a real Prometheus (Debian's package) scraping three engines'
/// metrics every second: a rollout converges on two instances, the third (failing) is flagged.
@Suite(
  .enabled(
    if: ExternalTool.shouldRun("prometheus"),
    "needs prometheus (apt-get install -y prometheus); skipped, not passed"),
  .enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
struct FleetViewTests {
  static let selector = #"{job="assets"}"#
  static let infoQuery = #"remote_assets_asset_info{job="assets"}"#

  /// Three loopback origins serving `/metrics`, each its own Prometheus `instance`.
  private func withThreeEngines<T>(_ body: ([LoopbackOrigin]) async throws -> T) async throws
    -> T
  {
    try await withOrigin { a in
      try await withOrigin { b in
        try await withOrigin { c in try await body([a, b, c]) }
      }
    }
  }

  private func publish(_ metrics: FleetMetricsText, on origin: LoopbackOrigin) async {
    await origin.setResource(
      "/metrics", body: metrics.data, contentType: "text/plain; version=0.0.4")
  }

  @Test func aRolloutConvergesOnTwoInstancesAndTheFailingOneIsFlaggedStuck() async throws {
    let start = Date().timeIntervalSince1970.rounded(.down)
    try await withThreeEngines { engines in
      // Before the rollout: everyone on flags 1.
      for engine in engines {
        await publish(
          FleetMetricsText(assets: [
            .init(id: "flags", version: "1", target: "1", lastSuccess: start),
            .init(id: "motd", version: "7", target: "7", lastSuccess: start),
          ]), on: engine)
      }
      let instances = engines.map { "127.0.0.1:\($0.port)" }
      try await withPrometheus(targets: instances) { prometheus in
        try await prometheus.waitUntil(Self.infoQuery) { $0.count == 6 }
        let tmux = try await TmuxSession.start(
          [
            AssetWatchBinary.path, "fleet", "--prometheus", prometheus.baseURL + "/",
            "--selector", Self.selector, "--interval", "1", "--stuck-after", "3",
          ], width: 120, height: 24, cwd: FileManager.default.temporaryDirectory)
        defer { Task { await tmux.kill() } }
        try await tmux.waitFor("flags 3/3", timeout: 120)
        try await tmux.waitFor("motd 3/3", timeout: 120)

        // The rollout: flags 2 is published; a and b take it, c's origin fails.
        for (index, engine) in engines.enumerated() {
          let stuck = index == 2
          await publish(
            FleetMetricsText(assets: [
              .init(
                id: "flags", version: stuck ? "1" : "2", target: "2",
                state: stuck ? "failed" : "fresh", errorKind: stuck ? "http" : "",
                failures: stuck ? 4 : 0, lastSuccess: stuck ? start : start + 1),
              .init(id: "motd", version: "7", target: "7", lastSuccess: start),
            ]), on: engine)
        }
        let screen = try await tmux.waitFor("two converged, one stuck", settled: true, timeout: 120)
        { screen in
          screen.text.contains("flags 2/3") && screen.text.contains("1 stuck")
        }
        let rows = screen.lines.filter {
          $0.dropFirst().hasPrefix("127.0.0.1") && $0.contains("flags")
        }
        #expect(rows.count == 3, "\(screen.text)")
        for line in rows {
          if line.contains(instances[2]) {
            #expect(line.hasPrefix("!"), "the stuck row is marked in the gutter: \(line)")
            #expect(line.contains("STUCK") && line.contains("FAILED") && line.contains("http"))
          } else {
            #expect(line.contains("converged") && !line.hasPrefix("!"), "\(line)")
          }
        }
        // The detail pane says why.
        try await tmux.press("/")
        try await tmux.type("stuck")
        try await tmux.press("Enter")
        try await tmux.press("Enter")
        try await tmux.waitFor("4 failed refreshes in a row")
        try await tmux.press("q")
        try await tmux.waitUntil("the fleet view exits on q") {
          // The pane (and its private server) ends with the command.
          guard let text = try? await tmux.capture() else { return true }
          return !text.contains("AssetWatch fleet")
        }

        try await FleetAPIComparison.expectJSONMatchesTheAPI(
          prometheus, selector: Self.selector, stuckInstance: instances[2])
      }
    }
  }
}
