import AssetJSON
import AssetWatchTestKit
import Crypto
import DemoOrigin
import Foundation
import Testing

/// The demo origin's signed releases (`assetwatch demo --signed`), followed by the engine (the
/// built binary's `status --refresh`) trusting the root the origin made: each clean release is
/// taken; the attacker's tampered target (release 4), expired timestamp (release 6) and
/// timestamp signed with its own key (release 8) are refused and the last good copy kept; the
/// next release is taken again.
@Suite struct SignedDemoTests {
  static func version(release: Int) -> String {
    let sha = SHA256.hash(data: RolloutContent.flags(release: release))
    return String(sha.map { String(format: "%02x", $0) }.joined().prefix(8))
  }

  @Test func theEngineFollowsTheSignedDemoAndRefusesItsAttacker() async throws {
    let simulation = try await RolloutSimulation.start(
      releaseInterval: nil, modelBytesPerSecond: nil, signed: true)
    do {
      try await withTemporaryDirectory { dir in
        let root = try #require(await simulation.trustedRoot())
        try root.write(to: dir.url("root.json"))
        _ = try dir.file(
          "assets.json",
          """
          { "appVersion": "1.0", "cacheDirectory": "cache",
            "tuf": { "metadataURL": "\(simulation.baseURL)/metadata/",
                     "targetsURL": "\(simulation.baseURL)/targets/", "root": "root.json" },
            "assets": [ { "id": "feature-flags", "format": "json" } ] }
          """)
        func status() async throws -> (version: String?, error: String?, refusal: String?) {
          let result = try await AssetWatchBinary.run(
            ["status", "--refresh", "--json", "--config", dir.path + "/assets.json"])
          let json = try JSONParser.parse(Array(result.stdout.utf8))
          let flags = json["assets"]?.arrayValue?.first
          return (
            flags?["version"]?.stringValue, flags?["lastError"]?["kind"]?.stringValue,
            json["trust"]?["refusal"]?.stringValue
          )
        }
        var now = try await status()
        #expect(now.version == Self.version(release: 1))
        #expect(now.error == nil)
        for release in 2...3 {
          await simulation.advance()
          #expect(await simulation.attack == .none)
          now = try await status()
          #expect(now.version == Self.version(release: release))
        }
        await simulation.advance()
        #expect(await simulation.attack == .tamperedTarget)
        now = try await status()
        #expect(now.version == Self.version(release: 3))
        #expect(now.error == "untrusted")

        await simulation.advance()
        now = try await status()
        #expect(now.version == Self.version(release: 5))
        #expect(now.error == nil)

        await simulation.advance()
        #expect(await simulation.attack == .expiredTimestamp)
        now = try await status()
        #expect(now.version == Self.version(release: 5))
        #expect(now.refusal?.contains("expired") == true, "\(now.refusal ?? "no refusal")")

        await simulation.advance()
        now = try await status()
        #expect(now.version == Self.version(release: 7))
        #expect(now.refusal == nil)

        await simulation.advance()
        #expect(await simulation.attack == .forgedTimestamp)
        now = try await status()
        #expect(now.version == Self.version(release: 7))
        #expect(now.refusal?.contains("signature") == true, "\(now.refusal ?? "no refusal")")

        await simulation.advance()
        now = try await status()
        #expect(now.version == Self.version(release: 9))
        #expect(now.refusal == nil)
      }
    } catch {
      try? await simulation.shutdown()
      throw error
    }
    try await simulation.shutdown()
  }
}
