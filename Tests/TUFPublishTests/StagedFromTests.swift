import AssetJSON
import AssetWatchTestKit
import Foundation
import TUF
import Testing

@testable import TUFPublish

/// Which `from` a staged update names: the listed target only when it is fully rolled out;
/// over a staged or halted target, that target's own `from` (what the held-back instances
/// serve), read back through the engine's verifier.
@Suite struct StagedFromTests {
  /// A repository in `folder` with one publish helper per step.
  struct Steps {
    var repository: Repository
    let ring: KeyRing
    let folder: String

    init(folder: String) throws {
      (repository, ring, _) = try PublishFixtures.initialize(in: folder)
      self.folder = folder
    }

    /// `publish add` (replace false) or `update` of target `flags`, then reads back its
    /// `custom.rollout`.
    mutating func step(
      _ bytes: String?, version: String?, rollout: Int?, replace: Bool = true
    ) throws -> JSONValue? {
      var publication = Publication()
      try repository.setTarget(
        path: "flags", bytes: bytes.map { Array($0.utf8) }, version: version,
        rollout: rollout.map(RolloutFields.init(percent:)), replace: replace, into: &publication)
      try repository.publish(
        from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      try RepositoryWriter(folder: folder).write(publication)
      let (_, target, _) = try PublishFixtures.verify(folder, target: "flags")
      return target?.custom?["rollout"]
    }
  }

  @Test func aFixAfterAHaltKeepsTheHeldBackOnWhatTheyServe() throws {
    try withTemporaryDirectory { dir in
      var steps = try Steps(folder: dir.path)
      _ = try steps.step("v1 bytes", version: "v1", rollout: nil, replace: false)
      let v1SHA = SHA256Text.hex(Array("v1 bytes".utf8))
      var rollout = try steps.step("v2 bytes", version: "v2", rollout: 10)
      #expect(rollout?["from"]?["version"] == .string("v1"))
      // Halted: v2 stays listed at 0 %, everyone on v1.
      rollout = try steps.step(nil, version: nil, rollout: 0)
      #expect(rollout?["percent"] == .integer(0))
      #expect(rollout?["from"]?["version"] == .string("v1"))
      // The fix: the held-back fleet still serves v1, never the halted v2.
      rollout = try steps.step("v3 bytes", version: "v3", rollout: 10)
      #expect(rollout?["percent"] == .integer(10))
      #expect(rollout?["from"]?["version"] == .string("v1"))
      #expect(rollout?["from"]?["sha256"] == .string(v1SHA))
      #expect(rollout?["from"]?["url"] == .string("\(v1SHA).flags"))
      #expect(rollout?["from"]?["size"] == .integer(8))
      // Staged over a staged (not halted) target: the same.
      rollout = try steps.step("v4 bytes", version: "v4", rollout: 20)
      #expect(rollout?["from"]?["version"] == .string("v1"))
      // Widening without bytes keeps it.
      rollout = try steps.step(nil, version: nil, rollout: 50)
      #expect(rollout?["percent"] == .integer(50))
      #expect(rollout?["from"]?["version"] == .string("v1"))
    }
  }

  @Test func afterAFullRolloutTheListedTargetBecomesFrom() throws {
    try withTemporaryDirectory { dir in
      var steps = try Steps(folder: dir.path)
      _ = try steps.step("v1 bytes", version: "v1", rollout: nil, replace: false)
      _ = try steps.step("v2 bytes", version: "v2", rollout: 10)
      #expect(try steps.step(nil, version: nil, rollout: 100) == nil)
      let rollout = try steps.step("v3 bytes", version: "v3", rollout: 10)
      #expect(rollout?["from"]?["version"] == .string("v2"))
      #expect(rollout?["from"]?["sha256"] == .string(SHA256Text.hex(Array("v2 bytes".utf8))))
      // New bytes at 100 % (or without --rollout) are no rollout at all.
      #expect(try steps.step("v4 bytes", version: "v4", rollout: 100) == nil)
      #expect(try steps.step("v5 bytes", version: "v5", rollout: nil) == nil)
    }
  }

  @Test func stagedWithoutFromStaysWithoutFrom() throws {
    try withTemporaryDirectory { dir in
      var steps = try Steps(folder: dir.path)
      // A new target staged has nothing to fall back to: held-back instances hold.
      var rollout = try steps.step("v1 bytes", version: "v1", rollout: 10, replace: false)
      #expect(rollout?["percent"] == .integer(10))
      #expect(rollout?["from"] == nil)
      // Staging v2 over it must not make the (never rolled out) v1 the fallback.
      rollout = try steps.step("v2 bytes", version: "v2", rollout: 10)
      #expect(rollout?["percent"] == .integer(10))
      #expect(rollout?["from"] == nil)
    }
  }
}
