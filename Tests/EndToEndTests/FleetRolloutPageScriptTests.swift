import AssetWatchTestKit
import Foundation
import Testing

/// The benchmark's page generator writes the staged-rollout pages too
/// (`scripts/fleet-page.py ... STAGED` and `SyntheticFleet(staged:)`), byte for byte.
@Suite(.enabled(if: ExternalTool.path("python3") != nil, "needs python3"))
struct FleetRolloutPageScriptTests {
  @Test func theScriptWritesTheStagedSyntheticFleetsPages() async throws {
    let now = 1_700_000_000.0
    try await withTemporaryDirectory { dir in
      let script = AssetWatchBinary.packageRoot.appendingPathComponent("scripts/fleet-page.py")
      let result = try await ProcessRunner.runTool(
        "python3", [script.path, dir.url.path, "40", "3", "5", "15", "\(Int(now))", "25"])
      #expect(result.status == 0, "\(result.stderr)")
      for (index, range) in [0..<15, 15..<30, 30..<40].enumerated() {
        let written = try Data(contentsOf: dir.url.appendingPathComponent("\(index).prom"))
        let made = SyntheticFleet(
          instances: 40, assets: 3, seed: 5, shard: range, now: now, staged: 25)
        #expect(written == made.page, "shard \(index)")
        let text = String(decoding: made.page, as: UTF8.self)
        #expect(text.contains("remote_assets_asset_held_back{"))
        #expect(text.contains("remote_assets_asset_rollout_percent{"))
      }
      // Unstaged, the page has none of the staged families (the benchmark's pages unchanged).
      let plain = String(
        decoding: SyntheticFleet(instances: 40, assets: 3, seed: 5, now: now).page, as: UTF8.self)
      #expect(!plain.contains("held_back") && !plain.contains("rollout_percent"))
    }
  }
}
