import AssetModel
import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The trust summary while the repository misbehaves (issue 37): an engine started while the
/// repository answers with endless data, or not at all, follows the targets its metadata folder
/// verified before, and its summary says so (``TrustSummary/heldOver``) beside what failed
/// (``TrustSummary/repositoryFailure``), so the dashboard's badge shows what is in force.
@Suite struct TUFTrustStatusTests {
  /// An asset following the signed demo's `feature-flags` target, refreshed only when asked.
  static let flags: AssetDefinition = AssetDefinition(
    id: "feature-flags", remote: nil, refresh: .manual, timeout: 10)

  /// Runs `body` with an engine over `cache` following the repository at `base`, trusting
  /// `root`.
  func withSignedEngine(
    base: String, root: URL, cache: URL, _ body: (AssetEngine) async throws -> Void
  ) async throws {
    let source = TUFSource(
      metadataURL: URL(string: "\(base)/metadata/")!,
      targetsURL: URL(string: "\(base)/targets/")!, root: root)
    try await withEngine([Self.flags], cache: cache, configure: { $0.tuf = source }, body)
  }

  /// The signed demo's first release; `body` gets the simulation, the folder the root was
  /// written to, and a cache whose metadata folder verified that release.
  func withVerifiedCache(
    _ body: (RolloutSimulation, TemporaryDirectory, URL) async throws -> Void
  ) async throws {
    let simulation = try await RolloutSimulation.start(
      releaseInterval: nil, modelBytesPerSecond: nil, signed: true)
    do {
      try await withTemporaryDirectory { dir in
        let root = dir.url.appendingPathComponent("root.json")
        try #require(await simulation.trustedRoot()).write(to: root)
        try await withSignedEngine(base: simulation.baseURL, root: root, cache: dir.cache) {
          engine in
          #expect(await engine.refresh("feature-flags").isUpdated)
          let trust = try #require(await engine.info().trust)
          #expect(trust.signed && trust.repositoryFailure == nil && trust.heldOver == nil)
        }
        try await body(simulation, dir, root)
      }
    } catch {
      try? await simulation.shutdown()
      throw error
    }
    try await simulation.shutdown()
  }

  /// What a restarted engine's summary must say: not a check of this run (`signed` false), the
  /// folder's metadata in force (root 1, the earliest expiry ahead), and the failure's words.
  func expectHeldOver(_ trust: TrustSummary?, failure words: String) {
    #expect(trust?.signed == false)
    #expect(trust?.refusal == nil)
    #expect(trust?.heldOver?.rootVersion == 1, "\(String(describing: trust))")
    #expect((trust?.heldOver?.earliestExpiry ?? .distantPast) > Date())
    #expect(trust?.inForce?.rootVersion == 1)
    let failure = trust?.repositoryFailure ?? ""
    #expect(failure.contains(words), "\(failure)")
  }

  @Test func aRepositoryAnsweringEndlessDataLeavesTheFoldersMetadataInForceAndSaysSo()
    async throws
  {
    try await withVerifiedCache { simulation, dir, root in
      // 5 MiB where a timestamp of a few hundred bytes belongs.
      await simulation.origin.setResource(
        "/metadata/timestamp.json", body: Data(repeating: 0x20, count: 5 << 20),
        contentType: "application/json")
      try await withSignedEngine(base: simulation.baseURL, root: root, cache: dir.cache) {
        engine in
        let outcome = await engine.refresh("feature-flags")
        #expect(outcome.failure?.kind != .untrusted, "\(outcome)")
        let status = try #require(await engine.status("feature-flags"))
        #expect(status.targetVersion != nil, "the folder's targets are followed")
        expectHeldOver(
          await engine.info().trust, failure: "Fetching timestamp.json failed: the server announced"
        )
      }
    }
  }

  @Test func anUnreachableRepositoryLeavesTheFoldersMetadataInForceAndSaysSo() async throws {
    try await withVerifiedCache { _, dir, root in
      let closed = "http://127.0.0.1:\(try NginxServer.freePort())"
      try await withSignedEngine(base: closed, root: root, cache: dir.cache) { engine in
        let outcome = await engine.refresh("feature-flags")
        #expect(outcome.failure?.kind == .refused, "\(outcome)")
        // The root rotation's probe (`2.root.json`) is the first file asked for.
        expectHeldOver(await engine.info().trust, failure: "root.json failed: connection refused")
      }
    }
  }

  @Test func aRepositoryThatAnswersAgainClearsTheFailure() async throws {
    try await withVerifiedCache { simulation, dir, root in
      let timestamp = try #require(await simulation.origin.resource(at: "/metadata/timestamp.json"))
      await simulation.origin.setResource(
        "/metadata/timestamp.json", body: Data(repeating: 0x20, count: 5 << 20),
        contentType: "application/json")
      try await withSignedEngine(base: simulation.baseURL, root: root, cache: dir.cache) {
        engine in
        _ = await engine.refresh("feature-flags")
        #expect(await engine.info().trust?.repositoryFailure != nil)
        await simulation.origin.setResource("/metadata/timestamp.json", timestamp)
        _ = await engine.refresh("feature-flags")
        let trust = try #require(await engine.info().trust)
        #expect(trust.signed && trust.repositoryFailure == nil && trust.heldOver == nil)
        #expect(trust.inForce?.rootVersion == 1)
      }
    }
  }
}
