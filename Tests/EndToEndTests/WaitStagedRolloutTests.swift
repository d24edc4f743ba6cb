import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssets
import Testing

/// `assetwatch wait` with a staged rollout: an instance outside the cohort converges on the
/// rollout's `from` (that is its target), and `wait --json` says it is not behind.
@Suite struct WaitStagedRolloutTests {
  @Test func aHeldBackInstanceConvergesOnFrom() async throws {
    let v1 = WaitCommandTests.v1
    let v2 = WaitCommandTests.v2
    try await withOrigin { origin in
      await origin.setGeneratedResource("/flags-v1.bin", content: v1)
      await origin.setGeneratedResource("/flags-v2.bin", content: v2)
      // 0 %: every instance is held back (a halted rollout).
      await origin.setResource(
        "/manifest.json",
        body: Data(
          """
          {"version":"r2","assets":[{"id":"flags","url":"/flags-v2.bin",\
          "sha256":"\(v2.sha256Hex())","size":\(v2.length),"version":"v2",\
          "rollout":{"percent":0,"from":{"version":"v1","url":"/flags-v1.bin",\
          "size":\(v1.length),"sha256":"\(v1.sha256Hex())"}}}]}
          """.utf8), contentType: "application/json")
      try await withTemporaryDirectory { dir in
        _ = try dir.file("bundled/flags.bin", "bundled bytes")
        _ = try dir.file("assets.json", WaitCommandTests.config(origin: origin.baseURL))
        let result = try await AssetWatchBinary.run(
          ["wait", "flags", "--timeout", "30s", "--json"], cwd: dir.url,
          environment: ["ASSETWATCH_INSTANCE": "held-1"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let json = try #require(
          try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["converged"] as? Bool == true)
        let asset = try #require((json["assets"] as? [[String: Any]])?.first)
        #expect(asset["version"] as? String == "v1", "\(asset)")
        #expect(asset["targetVersion"] as? String == "v1", "\(asset)")
        #expect(asset["behind"] as? Bool == false)
        #expect(await origin.requestCount(path: "/flags-v2.bin") == 0)
      }
    }
  }
}
