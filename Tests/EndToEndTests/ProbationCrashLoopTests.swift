import AssetWatchTestKit
import Crypto
import DemoOrigin
import Foundation
import RemoteAssets
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The crash-loop guard with real processes: `assetwatch serve` (the app's long-running engine)
/// killed twice while a new version is on probation rejects it by itself at the next start,
/// goes back to the version before, and `status --json` says why.
@Suite struct ProbationCrashLoopTests {
  static let v1 = Data(#"{"v":1}"#.utf8)
  static let v2 = Data(#"{"v":2}"#.utf8)

  static func publish(_ origin: LoopbackOrigin, _ body: Data, version: String) async {
    await origin.setResource("/\(version).json", body: body, contentType: "application/json")
    let sha = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
    await origin.setResource(
      "/manifest.json",
      body: Data(
        #"{"version":"m-\#(version)","assets":[{"id":"flags","url":"/\#(version).json","sha256":"\#(sha)","size":\#(body.count),"version":"\#(version)"}]}"#
          .utf8), contentType: "application/json")
  }

  @Test func anAppThatDiesTwiceOnProbationRejectsTheVersionAtTheNextStart() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await Self.publish(origin, Self.v1, version: "v1")
        _ = try dir.file(
          "assets.json",
          """
          { "appVersion": "1", "cacheDirectory": "cache", "instance": "canary-1",
            "manifest": "\(origin.baseURL)/manifest.json",
            "probation": { "crashes": 2 },
            "assets": [ { "id": "flags", "remote": "\(origin.baseURL)/v1.json", "format": "json",
                          "refreshEvery": "1h", "timeout": "30s" } ] }
          """)
        let config = ["--config", dir.url("assets.json").path]
        // v1 arrives through a one-shot refresh and is confirmed.
        let refreshed = try await AssetWatchBinary.run(["refresh"] + config, cwd: dir.url)
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        let confirmed = try await AssetWatchBinary.run(["confirm", "flags"] + config, cwd: dir.url)
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(confirmed.stdout.contains("flags  confirmed"), "\(confirmed.stdout)")

        await Self.publish(origin, Self.v2, version: "v2")
        for crashes in 0..<2 {
          let serve = try ServeProcess(folder: dir.url)
          try await serve.waitForState("v2 on probation after \(crashes) crashes") { snapshot in
            let flags = snapshot.assets.first { $0.id == "flags" }
            return flags?.probation?.version == "v2" && flags?.probation?.crashes == crashes
          }
          _ = await serve.stop(signal: SIGKILL)
        }
        let serve = try ServeProcess(folder: dir.url)
        try await serve.waitForState("v2 rejected, v1 served") { snapshot in
          let flags = snapshot.assets.first { $0.id == "flags" }
          return flags?.rejected?.version == "v2" && flags?.version == "v1"
        }
        _ = await serve.stop()

        let status = try await AssetWatchBinary.run(["status", "--json"] + config, cwd: dir.url)
        #expect(status.status == 0, "\(status.stderr)")
        let json = try #require(
          try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(json["instance"] as? String == "canary-1")
        let asset = try #require((json["assets"] as? [[String: Any]])?.first)
        #expect(asset["version"] as? String == "v1")
        let rejected = try #require(asset["rejected"] as? [String: Any])
        #expect(rejected["version"] as? String == "v2")
        #expect((rejected["reason"] as? String)?.contains("2 times") == true, "\(rejected)")
        #expect(asset["probation"] is NSNull)
        // The table says it too, beside the target.
        let table = try await AssetWatchBinary.run(["status"] + config, cwd: dir.url)
        #expect(table.stdout.contains("(rejected v2: the app ended 2 times"), "\(table.stdout)")
      }
    }
  }
}
