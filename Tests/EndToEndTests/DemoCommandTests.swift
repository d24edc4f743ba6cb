import AssetWatchTestKit
import Foundation
import Testing

/// What a newcomer runs first: the example config and the demo origin.
@Suite struct DemoCommandTests {
  @Test func exampleConfigChecksCleanWithNoEnvironment() async throws {
    let result = try await AssetWatchBinary.run(
      [
        "check", "--config",
        AssetWatchBinary.packageRoot.appendingPathComponent("assets.example.json").path,
      ],
      environment: ["ASSETS_TOKEN": ""])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("OK (7 assets)"))
  }

  @Test func originOnlyServesAManifestAndRanges() async throws {
    try await withTemporaryDirectory { dir in
      let port = freeLoopbackPort()
      try await AssetWatchBinary.withRunning(
        ["demo", "--no-signed", "--origin-only", "--port", "\(port)"], cwd: dir.url
      ) { origin in
        #expect(
          await origin.waitForOutput(containing: "Demo origin at http://127.0.0.1:\(port)"),
          "\(origin.output)")

        let manifest = try await ProcessRunner.runTool(
          "curl", ["-sS", "http://127.0.0.1:\(port)/manifest.json"])
        let json = try #require(
          try JSONSerialization.jsonObject(with: Data(manifest.stdout.utf8)) as? [String: Any])
        #expect((json["version"] as? String)?.hasPrefix("2026.11.21-") == true)
        let ids = (json["assets"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        #expect(ids.contains("model") && ids.contains("feature-flags"))

        let range = try await ProcessRunner.runTool(
          "curl",
          [
            "-sS", "-D", "-", "-o", "/dev/null", "-r", "100-199",
            "http://127.0.0.1:\(port)/model.bin",
          ])
        #expect(range.stdout.hasPrefix("HTTP/1.1 206"))
        #expect(range.stdout.lowercased().contains("content-range: bytes 100-199/52428800"))

        #expect(await origin.interrupt() == 130)
      }
    }
  }

  @Test func demoStartsItsEngineFromDiskBeforeWatching() async throws {
    try await withTemporaryDirectory { dir in
      let example = AssetWatchBinary.packageRoot.appendingPathComponent("assets.example.json").path
      try await AssetWatchBinary.withRunning(
        [
          "demo", "--no-signed", "--plain", "--example", example, "--cache-dir",
          dir.url.appendingPathComponent("cache").path,
        ],
        cwd: dir.url
      ) { demo in
        // A started engine knows its bundled copies' versions before any network traffic.
        #expect(
          await demo.waitForOutput(containing: "BUNDLED      version "), "\(demo.output)")
        #expect(await demo.interrupt() == 130)
      }
    }
  }

  /// `demo --signed`: the engine follows the origin's TUF repository (the trust state the
  /// header's badge shows): the signed targets verify and the assets update from them.
  @Test func signedDemoFollowsSignedTargets() async throws {
    try await withTemporaryDirectory { dir in
      let example = AssetWatchBinary.packageRoot.appendingPathComponent("assets.example.json").path
      try await AssetWatchBinary.withRunning(
        ["demo", "--signed", "--plain", "--example", example], cwd: dir.url
      ) { demo in
        #expect(
          await demo.waitForOutput(containing: "signed targets verified: 6 assets"),
          "\(demo.output)")
        #expect(
          await demo.waitForOutput(containing: "feature-flags   INFO         updated to"),
          "\(demo.output)")
        #expect(!demo.output.contains("untrusted"))
        #expect(await demo.interrupt() == 130)
      }
    }
  }
}
