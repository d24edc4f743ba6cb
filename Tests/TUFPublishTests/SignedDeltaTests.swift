import AssetJSON
import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

@testable import TUFPublish

/// A large target published with `assetwatch publish` carries its chunk index in the signed
/// `custom.chunks`; the engine (the built binary) takes the next version as a delta: `Range`
/// requests against the hash-prefixed target for the changed chunks only. An index whose bytes
/// differ from what the signature pins is never used: the update lands whole.
@Suite struct SignedDeltaTests {
  static let size = 12 << 20
  static let v1 = Data(GeneratedBytes(length: size, seed: 1901).bytes(in: 0..<size))
  static var v2: Data {
    var bytes = v1
    let fresh = GeneratedBytes(length: 64 << 10, seed: 1902).bytes(in: 0..<(64 << 10))
    bytes.replaceSubrange((5 << 20)..<((5 << 20) + (64 << 10)), with: fresh)
    return bytes
  }

  /// Publishes v1, points an engine at it (first status), publishes v2; runs `body` with the
  /// origin, the folder and the repository path.
  func withTwoVersions(
    _ body: (LoopbackOrigin, TemporaryDirectory, String) async throws -> Void
  ) async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        let (repo, keys) = try await PublishFixtures.initWithBinary(in: dir)
        /// `publish add|update` of `bytes` as `version`, then the folder served as it is now.
        func publish(_ verb: String, _ bytes: Data, version: String) async throws {
          let file = dir.url.appendingPathComponent("model-\(version).bin")
          try bytes.write(to: file)
          let result = try await AssetWatchBinary.run([
            "publish", verb, "--repo", repo, "--keys-dir", keys, "model", file.path, "--version",
            version,
          ])
          #expect(result.status == 0, "\(result.stderr)")
          try await EngineFollowsPublishTests.serve(repo, on: origin)
        }
        try await publish("add", Self.v1, version: "1")
        try EngineFollowsPublishTests.follow(
          repo, on: origin, in: dir, assets: #"{ "id": "model", "maxBytes": "64MiB" }"#)
        let first = try await EngineFollowsPublishTests.status(dir)
        #expect(first["assets"]?.arrayValue?.first?["version"] == .string("1"))

        try await publish("update", Self.v2, version: "2")
        try await body(origin, dir, repo)
      }
    }
  }

  /// The requests for the v2 target's bytes (hash-prefixed name) and the bytes their ranges
  /// asked for.
  static func targetRequests(_ origin: LoopbackOrigin, sha: String) async -> (
    count: Int, ranged: Int, bytes: Int
  ) {
    let requests = await origin.requests(path: "/targets/\(sha).model")
    var bytes = 0
    var ranged = 0
    for request in requests {
      guard let range = request.header("Range") else { continue }
      let span = range.dropFirst("bytes=".count).split(separator: "-")
      if span.count == 2, let a = Int(span[0]), let b = Int(span[1]) {
        bytes += b - a + 1
        ranged += 1
      }
    }
    return (requests.count, ranged, bytes)
  }

  @Test func theNextSignedVersionTravelsAsADelta() async throws {
    try await withTwoVersions { origin, dir, repo in
      let repository = try Repository.load(folder: repo)
      let target = try #require(repository.target("model"))
      let chunks = try #require(target["custom"]?["chunks"], "publish named the index")
      #expect(chunks["path"] == .string("model.chunks"))
      let sha = try #require(target["hashes"]?["sha256"]?.stringValue)

      let status = try await EngineFollowsPublishTests.status(dir)
      let model = status["assets"]?.arrayValue?.first
      #expect(model?["version"] == .string("2"))
      #expect(model?["sha256"]?.stringValue == sha)
      let moved = await Self.targetRequests(origin, sha: sha)
      #expect(moved.count == moved.ranged && moved.ranged > 0, "only Range requests: \(moved)")
      #expect(moved.bytes < Self.size / 10, "fetched \(moved.bytes) of \(Self.size)")
    }
  }

  @Test func anIndexTheSignatureDoesNotPinIsNeverUsed() async throws {
    try await withTwoVersions { origin, dir, repo in
      let repository = try Repository.load(folder: repo)
      let target = try #require(repository.target("model"))
      let sha = try #require(target["hashes"]?["sha256"]?.stringValue)
      let chunks = try #require(target["custom"]?["chunks"])
      let indexSHA = try #require(chunks["sha256"]?.stringValue)
      // An attacker swaps the index for one that claims every chunk is held.
      await origin.setResource(
        "/targets/\(indexSHA).model.chunks", body: Data("assetwatch-chunks 1\n".utf8),
        contentType: "text/plain")

      let status = try await EngineFollowsPublishTests.status(dir)
      let model = status["assets"]?.arrayValue?.first
      #expect(model?["version"] == .string("2"), "the update still lands, whole")
      let moved = await Self.targetRequests(origin, sha: sha)
      #expect(moved.ranged == 0 && moved.count == 1, "\(moved)")
    }
  }
}
