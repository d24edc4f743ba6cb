import AssetWatchTestKit
import Foundation
import Testing

/// The benchmark's page generator (`scripts/fleet-page.py`) writes the pages the tests'
/// ``SyntheticFleet`` makes, so the benchmark measures the fleet the tests check.
@Suite(.enabled(if: ExternalTool.path("python3") != nil, "needs python3"))
struct FleetPageScriptTests {
  @Test func theScriptWritesTheSyntheticFleetsPages() async throws {
    let now = 1_700_000_000.0
    try await withTemporaryDirectory { dir in
      let script = AssetWatchBinary.packageRoot.appendingPathComponent("scripts/fleet-page.py")
      let result = try await ProcessRunner.runTool(
        "python3", [script.path, dir.url.path, "25", "4", "9", "10", "\(Int(now))"])
      #expect(result.status == 0, "\(result.stderr)")
      for (index, range) in [0..<10, 10..<20, 20..<25].enumerated() {
        let written = try Data(contentsOf: dir.url.appendingPathComponent("\(index).prom"))
        let made = SyntheticFleet(instances: 25, assets: 4, seed: 9, shard: range, now: now)
        #expect(written == made.page, "shard \(index)")
      }
    }
  }
}
