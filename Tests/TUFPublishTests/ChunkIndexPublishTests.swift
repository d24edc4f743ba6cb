import AssetJSON
import AssetWatchTestKit
import ChunkIndex
import Crypto
import DemoOrigin
import Foundation
import TUF
import Testing

@testable import TUFPublish

/// A large target's chunk index published beside it: `assetwatch publish add` writes FILE.chunks,
/// lists it as target PATH.chunks and names it in PATH's signed custom.chunks; the engine's
/// verifier and python-tuf's ngclient both download the two.
@Suite struct ChunkIndexPublishTests {
  /// `count` pseudo-random bytes from `seed` (the test origin's generator).
  static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
    GeneratedBytes(length: count, seed: seed).bytes(in: 0..<count)
  }

  /// The signed entry of target `path` in the repository at `repo`, read by the engine's
  /// verifier, with the bytes it downloads (checked against the signed length and hash).
  static func verified(_ repo: String, _ path: String) throws -> (TargetFile, [UInt8]) {
    let (_, target, bytes) = try PublishFixtures.verify(repo, target: path)
    return (try #require(target), try #require(bytes))
  }

  /// What custom.chunks must say of an index file's bytes.
  static func expectedCustom(_ indexBytes: [UInt8], path: String) -> JSONValue {
    .object([
      "path": .string(path + ".chunks"),
      "length": .integer(Int64(indexBytes.count)),
      "sha256": .string(SHA256.hash(data: indexBytes).map { String(format: "%02x", $0) }.joined()),
    ])
  }

  @Test func aLargeFileIsPublishedWithItsIndexAndNgclientDownloadsBoth() async throws {
    try await withTemporaryDirectory { dir in
      let (repo, keys) = try await PublishFixtures.initWithBinary(in: dir)
      var result: ProcessRunner.Result
      let model = Self.bytes(9 << 20 + 7, seed: 1)
      let file = try dir.file("model.bin", Data(model))
      result = try await PublishCommandTests.run([
        "add", "--repo", repo, "--keys-dir", keys, "models/model.bin", file.path, "--version", "1",
      ])
      #expect(result.status == 0, "\(result.stderr)")

      // FILE.chunks beside the file is the index of its bytes.
      let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file.path + ".chunks")))
      let index = try ChunkIndex(parsing: written)
      #expect(index == ChunkIndex(of: model))

      // The index is its own target, and the asset's signed custom.chunks names it.
      let (asset, assetBytes) = try Self.verified(repo, "models/model.bin")
      #expect(assetBytes == model)
      let (indexTarget, indexBytes) = try Self.verified(repo, "models/model.bin.chunks")
      #expect(indexBytes == written)
      #expect(indexTarget.length == Int64(written.count))
      #expect(asset.custom?["chunks"] == Self.expectedCustom(written, path: "models/model.bin"))
      #expect(asset.custom?["version"] == .string("1"))
      #expect(indexTarget.custom?["chunks"] == nil)

      // python-tuf's client downloads both through the signed metadata.
      let ng = try PublishFixtures.ngclient(
        repo: repo, metadataDir: dir.path + "/client", trustedRoot: repo + "/metadata/1.root.json",
        targets: ["models/model.bin", "models/model.bin.chunks"])
      #expect(ng.bytes("models/model.bin") == model)
      #expect(ng.bytes("models/model.bin.chunks") == written)
      #expect(
        ng.targets["models/model.bin"]??.custom?.value["chunks"]
          == Self.expectedCustom(written, path: "models/model.bin"))

      // New bytes replace the index; --no-chunks drops it (custom.chunks and the listing).
      var edited = model
      edited.replaceSubrange(4 << 20..<(4 << 20), with: Self.bytes(100_000, seed: 2))
      try Data(edited).write(to: file)
      result = try await PublishCommandTests.run([
        "update", "--repo", repo, "--keys-dir", keys, "models/model.bin", file.path,
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let rewritten = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file.path + ".chunks")))
      let newIndex = try ChunkIndex(parsing: rewritten)
      #expect(newIndex == ChunkIndex(of: edited))
      #expect(newIndex.chunkHashes.intersection(index.chunkHashes).count > index.chunks.count / 2)
      let (updated, _) = try Self.verified(repo, "models/model.bin")
      #expect(updated.custom?["chunks"] == Self.expectedCustom(rewritten, path: "models/model.bin"))
      #expect(try Self.verified(repo, "models/model.bin.chunks").1 == rewritten)

      result = try await PublishCommandTests.run([
        "update", "--repo", repo, "--keys-dir", keys, "models/model.bin", file.path,
        "--no-chunks",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let (trusted, plain, _) = try PublishFixtures.verify(repo, target: "models/model.bin")
      #expect(plain?.custom?["chunks"] == nil)
      #expect(trusted.targets?.targets["models/model.bin.chunks"] == nil)
    }
  }

  /// A new version is cut like the one clients hold (the listed index's average), not by its
  /// own size: across a rounding point of the default, no chunk would line up.
  @Test func anUpdateKeepsTheListedIndexsAverage() async throws {
    try await withTemporaryDirectory { dir in
      let (repo, keys) = try await PublishFixtures.initWithBinary(in: dir)
      let model = Self.bytes(9 << 20, seed: 5)
      let file = try dir.file("model.bin", Data(model))
      var result = try await PublishCommandTests.run([
        "add", "--repo", repo, "--keys-dir", keys, "model.bin", file.path,
        "--chunk-average", "128KiB",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let first = try ChunkIndex(
        parsing: [UInt8](try Data(contentsOf: URL(fileURLWithPath: file.path + ".chunks"))))
      #expect(first.parameters.averageSize == 128 << 10)
      // By its size alone (9 MiB) the default would be 64 KiB.
      #expect(ChunkingParameters.forFile(size: Int64(model.count)).averageSize == 64 << 10)

      var edited = model
      edited.replaceSubrange(3 << 20..<(3 << 20), with: Self.bytes(50_000, seed: 6))
      try Data(edited).write(to: file)
      result = try await PublishCommandTests.run([
        "update", "--repo", repo, "--keys-dir", keys, "model.bin", file.path,
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let second = try ChunkIndex(
        parsing: [UInt8](try Data(contentsOf: URL(fileURLWithPath: file.path + ".chunks"))))
      #expect(second.parameters == first.parameters)
      #expect(second.chunkHashes.intersection(first.chunkHashes).count > first.chunks.count / 2)

      result = try await PublishCommandTests.run([
        "update", "--repo", repo, "--keys-dir", keys, "model.bin", file.path,
        "--chunk-average", "96KiB",
      ])
      #expect(result.status == 2 && result.stderr.contains("--chunk-average 96KiB"))
    }
  }

  @Test func aSmallFileGetsNoIndexUnlessAsked() async throws {
    try await withTemporaryDirectory { dir in
      let (repo, keys) = try await PublishFixtures.initWithBinary(in: dir)
      var result: ProcessRunner.Result
      let small = try dir.file("flags.json", Data(Self.bytes(300_000, seed: 3)))
      result = try await PublishCommandTests.run([
        "add", "--repo", repo, "--keys-dir", keys, "flags", small.path,
      ])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: small.path + ".chunks"))
      var (trusted, target, _) = try PublishFixtures.verify(repo, target: "flags")
      #expect(target?.custom?["chunks"] == nil)
      #expect(trusted.targets?.targets["flags.chunks"] == nil)

      let asked = try dir.file("asked.bin", Data(Self.bytes(300_000, seed: 4)))
      result = try await PublishCommandTests.run([
        "add", "--repo", repo, "--keys-dir", keys, "asked", asked.path, "--chunks",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: asked.path + ".chunks")))
      (trusted, target, _) = try PublishFixtures.verify(repo, target: "asked")
      #expect(target?.custom?["chunks"] == Self.expectedCustom(written, path: "asked"))
      #expect(try Self.verified(repo, "asked.chunks").1 == written)

      // Removing the target removes its index from the listing too.
      result = try await PublishCommandTests.run([
        "remove", "--repo", repo, "--keys-dir", keys, "asked",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      (trusted, _, _) = try PublishFixtures.verify(repo)
      #expect(trusted.targets?.targets["asked"] == nil)
      #expect(trusted.targets?.targets["asked.chunks"] == nil)
      #expect(trusted.targets?.targets["flags"] != nil)
    }
  }

  @Test func anIndexOfOtherBytesIsRefused() throws {
    try withTemporaryDirectory { dir in
      var (repository, _, _) = try PublishFixtures.initialize(in: dir.path + "/repo")
      var publication = Publication()
      try repository.setTarget(
        path: "a.bin", bytes: Self.bytes(1000, seed: 5), version: nil, rollout: nil,
        replace: false, into: &publication)
      let other = ChunkIndex(of: Self.bytes(1000, seed: 6))
      #expect(
        throws: PublishError("the chunk index of a.bin describes other bytes than the target's")
      ) {
        try repository.setChunkIndex(other, forTarget: "a.bin", into: &publication)
      }
      #expect(throws: PublishError("no target b.bin to index")) {
        try repository.setChunkIndex(other, forTarget: "b.bin", into: &publication)
      }
    }
  }
}
