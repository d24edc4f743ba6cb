import Foundation
import Testing

/// What a newcomer runs first: the example config and the demo origin.
@Suite struct DemoCommandTests {
  @Test func exampleConfigChecksCleanWithNoEnvironment() async throws {
    let result = try await BinaryRunner.run(
      [
        "check", "--config",
        BinaryRunner.packageRoot.appendingPathComponent("assets.example.json").path,
      ],
      environment: ["ASSETS_TOKEN": ""])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("OK (7 assets)"))
  }

  @Test func originOnlyServesAManifestAndRanges() async throws {
    let dir = Scratch()
    defer { dir.remove() }
    let port = freeLoopbackPort()
    let origin = try WatchedProcess(["demo", "--origin-only", "--port", "\(port)"], cwd: dir.url)
    defer { origin.stop() }
    #expect(
      await origin.waitForOutput(containing: "Demo origin at http://127.0.0.1:\(port)"),
      "\(origin.output)")

    let manifest = try await BinaryRunner.runTool(
      "curl", ["-sS", "http://127.0.0.1:\(port)/manifest.json"])
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(manifest.stdout.utf8)) as? [String: Any])
    #expect((json["version"] as? String)?.hasPrefix("2026.11.21-") == true)
    let ids = (json["assets"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
    #expect(ids.contains("model") && ids.contains("feature-flags"))

    let range = try await BinaryRunner.runTool(
      "curl",
      ["-sS", "-D", "-", "-o", "/dev/null", "-r", "100-199", "http://127.0.0.1:\(port)/model.bin"])
    #expect(range.stdout.hasPrefix("HTTP/1.1 206"))
    #expect(range.stdout.lowercased().contains("content-range: bytes 100-199/52428800"))

    #expect(await origin.interrupt() == 130)
  }

  @Test func demoStartsItsEngineFromDiskBeforeWatching() async throws {
    let dir = Scratch()
    defer { dir.remove() }
    let example = BinaryRunner.packageRoot.appendingPathComponent("assets.example.json").path
    let demo = try WatchedProcess(
      [
        "demo", "--plain", "--example", example, "--cache-dir",
        dir.url.appendingPathComponent("cache").path,
      ],
      cwd: dir.url)
    defer { demo.stop() }
    // A started engine knows its bundled copies' versions before any network traffic.
    #expect(
      await demo.waitForOutput(containing: "BUNDLED      version "), "\(demo.output)")
    #expect(await demo.interrupt() == 130)
  }
}
