import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

/// Runs `body` against a simulation that advances only when told to, and always shuts it down.
func withSimulation<T>(
  modelBytesPerSecond: Int? = nil, _ body: (RolloutSimulation) async throws -> T
)
  async throws -> T
{
  let simulation = try await RolloutSimulation.start(
    port: 0, releaseInterval: nil, modelBytesPerSecond: modelBytesPerSecond)
  do {
    let result = try await body(simulation)
    try await simulation.shutdown()
    return result
  } catch {
    try await simulation.shutdown()
    throw error
  }
}

@Suite("Rollout simulation")
struct RolloutSimulationTests {
  @Test func manifestMatchesWhatEveryPathServes() async throws {
    try await withSimulation { simulation in
      let fetched = try await Curl.fetch(simulation.baseURL + "/manifest.json")
      let manifest = try JSONDecoder().decode(ReleaseManifest.self, from: fetched.body)
      #expect(manifest.version == "2026.11.21-1")
      #expect(
        Set(manifest.assets.map(\.id)) == [
          "feature-flags", "catalog", "motd", "banner", "logo", "model",
        ])
      #expect(manifest.assets.filter(\.essential).map(\.id) == ["feature-flags"])
      try await withTemporaryDirectory(prefix: "demo-origin") { scratch in
        let folder = scratch.url
        for asset in manifest.assets {
          let file = folder.appendingPathComponent(asset.id).path
          let (code, out, _) = try await Curl.run([
            "-sS", "--noproxy", "*", "-o", file, "-w", "%{http_code} %{size_download}", asset.url,
          ])
          #expect(code == 0)
          #expect(out == "200 \(asset.size)", "\(asset.id)")
          #expect(try await Curl.sha256(ofFile: file) == asset.sha256, "\(asset.id)")
          #expect(asset.version == String(asset.sha256.prefix(8)))
        }
        let model = try #require(manifest.assets.first { $0.id == "model" })
        #expect(model.size == 52_428_800)
        #expect(model.sha256 == RolloutSimulation.modelSHA256)
      }
    }
  }

  @Test func advanceChangesFlagsETagAndManifestVersion() async throws {
    try await withSimulation { simulation in
      let before = try await Curl.fetch(simulation.baseURL + "/flags.json")
      await simulation.advance()
      let after = try await Curl.fetch(simulation.baseURL + "/flags.json")
      #expect(before.header("ETag") != nil)
      #expect(before.header("ETag") != after.header("ETag"))
      #expect(try JSONSerialization.jsonObject(with: after.body) is [String: Any])
      #expect(after.body.count > 1500 && after.body.count < 4096)
      let manifest = await simulation.manifest()
      #expect(manifest.version == "2026.11.21-2")
    }
  }

  @Test func catalogIsInvalidJSONOnEveryThirdRelease() async throws {
    try await withSimulation { simulation in
      let valid = try await Curl.fetch(simulation.baseURL + "/catalog.json")
      #expect((try? JSONSerialization.jsonObject(with: valid.body)) != nil)
      await simulation.advance()
      await simulation.advance()
      #expect(await simulation.release == 3)
      let broken = try await Curl.fetch(simulation.baseURL + "/catalog.json")
      #expect(broken.status == 200)
      #expect((try? JSONSerialization.jsonObject(with: broken.body)) == nil)
    }
  }

  @Test func modelServesRanges() async throws {
    try await withSimulation(modelBytesPerSecond: 8 << 20) { simulation in
      let result = try await Curl.fetch(
        simulation.baseURL + "/model.bin", ["-H", "Range: bytes=1000-1999"])
      #expect(result.status == 206)
      #expect(result.header("Content-Range") == "bytes 1000-1999/52428800")
      let model = GeneratedBytes(
        length: RolloutSimulation.modelSize, seed: RolloutSimulation.modelSeed)
      #expect(result.body == Data(model.bytes(in: 1000..<2000)))
    }
  }

  @Test func bannerFailsWith503AndRetryAfterWhenTold() async throws {
    try await withSimulation { simulation in
      await simulation.setBannerFailure(.always)
      let failing = try await Curl.fetch(simulation.baseURL + "/banner.png")
      #expect(failing.status == 503)
      #expect(failing.header("Retry-After") == "5")
      await simulation.setBannerFailure(.never)
      let served = try await Curl.fetch(simulation.baseURL + "/banner.png")
      #expect(served.status == 200)
      #expect(served.header("Content-Type") == "image/png")
      #expect(Array(served.body.prefix(8)) == PNGEncoder.signature)
      let etag = try #require(served.header("ETag"))
      let revalidated = try await Curl.fetch(
        simulation.baseURL + "/banner.png", ["-H", "If-None-Match: \(etag)"])
      #expect(revalidated.status == 304)
    }
  }

  @Test func bannerFailsOnScheduledReleases() async throws {
    try await withSimulation { simulation in
      let first = try await Curl.fetch(simulation.baseURL + "/banner.png")
      #expect(first.status == 200)
      await simulation.advance()  // release 2: scheduled failure
      let second = try await Curl.fetch(simulation.baseURL + "/banner.png")
      #expect(second.status == 503)
    }
  }

  @Test func runUntilCancelledShutsDownWhenCancelled() async throws {
    let simulation = try await RolloutSimulation.start(port: 0, releaseInterval: .milliseconds(20))
    let running = Task { try await simulation.runUntilCancelled() }
    let served = try await Curl.fetch(simulation.baseURL + "/motd.txt")
    #expect(served.status == 200)
    running.cancel()
    try await running.value
    let after = try await Curl.fetch(simulation.baseURL + "/motd.txt")
    #expect(after.exitCode == 7)  // curl: failed to connect
  }
}
