import DemoOrigin
import Foundation
import Testing

/// `assetwatch wait` as a deploy script runs it: after publishing a manifest, block until the
/// assets serve their target versions; exit 0 when they do, 1 on timeout with the reason.
@Suite struct WaitCommandTests {
  static let v1 = GeneratedBytes(length: 4096, seed: 1)
  static let v2 = GeneratedBytes(length: 6000, seed: 2)

  /// A manifest naming `flags` at `path`, with the hash and size of `bytes`.
  static func manifest(_ version: String, path: String, bytes: GeneratedBytes, asset: String)
    -> Data
  {
    Data(
      """
      {"version":"\(version)","assets":[{"id":"flags","url":"\(path)",\
      "sha256":"\(bytes.sha256Hex())","size":\(bytes.length),"version":"\(asset)"}]}
      """.utf8)
  }

  /// A config with one asset and the origin's manifest; the manifest is re-checked every second.
  static func config(origin: String) -> String {
    """
    {
      "appVersion": "2.3.0",
      "cacheDirectory": "cache",
      "manifest": "\(origin)/manifest.json",
      "defaults": { "refreshEvery": "1s", "ttl": "5m", "timeout": "20s" },
      "assets": [
        { "id": "flags", "remote": "\(origin)/flags.bin", "bundled": "bundled/flags.bin",
          "format": "binary" }
      ]
    }
    """
  }

  /// An origin whose manifest publishes release 1 at a URL that fails (a stuck rollout).
  func stuckOrigin() async throws -> LoopbackOrigin {
    let origin = try await LoopbackOrigin.start()
    await origin.setHandler("/flags-v1.bin") { _ in .text("upstream down", status: 503) }
    await origin.setResource(
      "/manifest.json",
      body: Self.manifest("r1", path: "/flags-v1.bin", bytes: Self.v1, asset: "v1"),
      contentType: "application/json")
    return origin
  }

  func scratch(_ origin: LoopbackOrigin) -> Scratch {
    let dir = Scratch()
    dir.write("bundled/flags.bin", "bundled bytes")
    dir.write("assets.json", Self.config(origin: origin.baseURL))
    return dir
  }

  @Test func convergesWhenTheManifestMovesToAWorkingReleaseWhileItWaits() async throws {
    let origin = try await stuckOrigin()
    defer { Task { try? await origin.shutdown() } }
    await origin.setGeneratedResource("/flags-v2.bin", content: Self.v2)
    let dir = scratch(origin)
    defer { dir.remove() }
    async let waiting = BinaryRunner.run(["wait", "--timeout", "60s"], cwd: dir.url)
    // wait is running and stuck on release 1; then release 2 is published.
    await origin.waitForRequests(path: "/flags-v1.bin", count: 1)
    await origin.setResource(
      "/manifest.json",
      body: Self.manifest("r2", path: "/flags-v2.bin", bytes: Self.v2, asset: "v2"),
      contentType: "application/json")
    let result = try await waiting
    #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
    #expect(
      result.stdout.contains("converged: 1 asset on target (manifest r2)"), "\(result.stdout)")
    // Progress lines (stdout is a pipe): the stuck release, then the new target reached.
    #expect(result.stdout.contains("target v1"), "\(result.stdout)")
    #expect(result.stdout.contains("on target v2"), "\(result.stdout)")
    #expect(!result.stdout.contains("\u{1B}"), "no escape codes in a pipe")
    #expect(await origin.requestCount(path: "/flags-v2.bin") >= 1)
    #expect(await origin.requestCount(path: "/flags.bin") == 0, "the config's URL is not used")
  }

  @Test func timesOutOnAStuckAssetWithExitOneAndTheReason() async throws {
    let origin = try await stuckOrigin()
    defer { Task { try? await origin.shutdown() } }
    let dir = scratch(origin)
    defer { dir.remove() }
    let result = try await BinaryRunner.run(["wait", "flags", "--timeout", "15s"], cwd: dir.url)
    #expect(result.status == 1, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
    let summary = try #require(
      result.stdout.split(separator: "\n").drop(while: { !$0.hasPrefix("timed out") }).first)
    #expect(summary.hasPrefix("timed out after 15s: 1 asset of 1 not on target (manifest r1)"))
    let reason = try #require(
      result.stdout.split(separator: "\n").last { $0.hasPrefix("  flags") }.map(String.init))
    // FAILED, or CHECKING when the timeout lands on a retry (backoff is jittered).
    #expect(reason.contains("FAILED") || reason.contains("CHECKING"), "\(reason)")
    #expect(reason.contains("target v1"), "\(reason)")
    #expect(reason.contains("HTTP 503"), "\(reason)")
  }

  @Test func jsonNamesEveryAssetWithWhyItIsBehind() async throws {
    let origin = try await stuckOrigin()
    defer { Task { try? await origin.shutdown() } }
    let dir = scratch(origin)
    defer { dir.remove() }
    let result = try await BinaryRunner.run(
      ["wait", "--timeout", "15s", "--json"], cwd: dir.url)
    #expect(result.status == 1, "\(result.stderr)")
    let root = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
      "stdout is one JSON document: \(result.stdout)")
    #expect(
      Set(root.keys) == [
        "converged", "elapsedSeconds", "manifestVersion", "manifestProblem", "unknownIDs", "assets",
      ])
    #expect(root["converged"] as? Bool == false)
    #expect(root["manifestVersion"] as? String == "r1")
    #expect(root["manifestProblem"] is NSNull)
    let asset = try #require((root["assets"] as? [[String: Any]])?.first)
    #expect(
      Set(asset.keys) == [
        "id", "state", "version", "targetVersion", "behind", "converged", "reason", "lastError",
      ])
    #expect(asset["id"] as? String == "flags")
    // FAILED, or CHECKING when the timeout lands on a retry (backoff is jittered), as above.
    #expect(["FAILED", "CHECKING"].contains(asset["state"] as? String ?? ""), "\(asset)")
    #expect(asset["targetVersion"] as? String == "v1")
    #expect(asset["behind"] as? Bool == true)
    #expect(asset["converged"] as? Bool == false)
    #expect((asset["reason"] as? String)?.contains("HTTP 503") == true)
    let error = try #require(asset["lastError"] as? [String: Any])
    #expect(error["kind"] as? String == "http_status")
    #expect((error["at"] as? String)?.hasSuffix("Z") == true)
    // Progress went to stderr, keeping stdout one document.
    #expect(result.stderr.contains("flags"))
  }

  @Test func withoutAManifestItWaitsForFreshAndRejectsUnknownIDs() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    await origin.setGeneratedResource("/flags.bin", content: Self.v1)
    let dir = Scratch()
    defer { dir.remove() }
    dir.write(
      "assets.json",
      """
      { "appVersion": "1", "cacheDirectory": "cache",
        "assets": [ { "id": "flags", "remote": "\(origin.baseURL)/flags.bin" } ] }
      """)
    let result = try await BinaryRunner.run(["wait", "--timeout", "30s"], cwd: dir.url)
    #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
    #expect(result.stdout.contains("converged: 1 asset on target after"))
    // Unknown ids exit 2 at once, all of them named, the same on every run.
    for _ in 0..<3 {
      let unknown = try await BinaryRunner.run(["wait", "flags", "nope", "gone"], cwd: dir.url)
      #expect(unknown.status == 2)
      #expect(unknown.stderr.contains("no asset named \"nope\", \"gone\""), "\(unknown.stderr)")
    }
    let badTimeout = try await BinaryRunner.run(["wait", "--timeout", "soon"], cwd: dir.url)
    #expect(badTimeout.status != 0)
    #expect(badTimeout.stderr.contains("not a duration"))
  }

  @Test func statusMarksAnAssetBehindInTextAndJSON() async throws {
    let origin = try await stuckOrigin()
    defer { Task { try? await origin.shutdown() } }
    let dir = scratch(origin)
    defer { dir.remove() }
    // Fetches the manifest (release 1) and fails on the asset: it stays on its bundled copy.
    _ = try await BinaryRunner.run(["refresh", "flags"], cwd: dir.url)
    let text = try await BinaryRunner.run(["status"], cwd: dir.url)
    #expect(text.stdout.contains("v1 (behind)"), "\(text.stdout)")
    let json = try await BinaryRunner.run(["status", "--json"], cwd: dir.url)
    let root = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect(root["manifestVersion"] as? String == "r1")
    let asset = try #require((root["assets"] as? [[String: Any]])?.first)
    #expect(asset["targetVersion"] as? String == "v1")
    #expect(asset["behind"] as? Bool == true)
  }
}
