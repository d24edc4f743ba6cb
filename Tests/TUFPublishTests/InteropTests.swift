import AssetJSON
import AssetWatchTestKit
import Foundation
import TUF
import Testing

@testable import TUFPublish

/// Both ways with python-tuf, the reference peer: its client (ngclient) reads what the publisher
/// writes, served over http from the folder; and the publisher takes over a repository
/// python-tuf's Metadata API made.
@Suite struct InteropTests {
  @Test func ngclientDownloadsWhatPublishWrites() throws {
    try withTemporaryDirectory { dir in
      let repo = dir.path + "/repo"
      var (repository, ring, _) = try PublishFixtures.initialize(in: repo)
      let v1 = Array("flags v1\n".utf8)
      var publication = Publication()
      try repository.setTarget(
        path: "app/flags.json", bytes: v1, version: "2026.11.26-1", rollout: nil, replace: false,
        into: &publication)
      try repository.publish(
        from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      try RepositoryWriter(folder: repo).write(publication)

      let md = dir.path + "/client"
      var result = try PublishFixtures.ngclient(
        repo: repo, metadataDir: md, trustedRoot: repo + "/metadata/1.root.json",
        targets: ["app/flags.json", "missing.txt"])
      #expect(result.bytes("app/flags.json") == v1)
      #expect(
        result.targets["app/flags.json"]??.custom?.value["version"] == .string("2026.11.26-1"))
      #expect(result.targets.keys.contains("missing.txt") && result.bytes("missing.txt") == nil)
      #expect(result.timestampVersion == 2)

      // A staged update and a timestamp refresh, read by the same client (rollback checks on).
      let v2 = Array("flags v2\n".utf8)
      publication = Publication()
      try repository.setTarget(
        path: "app/flags.json", bytes: v2, version: "2026.11.26-2",
        rollout: RolloutFields(percent: 25), replace: true, into: &publication)
      try repository.publish(
        from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      try repository.publish(
        from: "timestamp", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      try RepositoryWriter(folder: repo).write(publication)
      result = try PublishFixtures.ngclient(
        repo: repo, metadataDir: md, trustedRoot: repo + "/metadata/1.root.json",
        targets: ["app/flags.json"])
      #expect(result.bytes("app/flags.json") == v2)
      #expect(result.timestampVersion == 4)
      let rollout = result.targets["app/flags.json"]??.custom?.value["rollout"]
      #expect(rollout?["percent"] == .integer(25))
      #expect(rollout?["from"]?["version"] == .string("2026.11.26-1"))
    }
  }

  @Test func ngclientFollowsARootRotation() throws {
    try withTemporaryDirectory { dir in
      let repo = dir.path + "/repo"
      var (repository, ring, keys) = try PublishFixtures.initialize(in: repo)
      var publication = Publication()
      try repository.setTarget(
        path: "a.txt", bytes: Array("a1".utf8), version: "1", rollout: nil, replace: false,
        into: &publication)
      try repository.publish(
        from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      try RepositoryWriter(folder: repo).write(publication)
      let md = dir.path + "/client"
      _ = try PublishFixtures.ngclient(
        repo: repo, metadataDir: md, trustedRoot: repo + "/metadata/1.root.json", targets: ["a.txt"]
      )

      // Root 2 replaces the root key and the timestamp key (a lost key); root 3 raises the
      // root threshold to 2 of 2.
      let root2 = SigningKey.generate()
      let root3 = SigningKey.generate()
      let timestamp2 = SigningKey.generate()
      var change = Repository.RootChange()
      change.add = [("root", root2), ("timestamp", timestamp2)]
      change.remove = [
        ("root", keys["root"]![0].keyID), ("timestamp", keys["timestamp"]![0].keyID),
      ]
      ring.add(root2)
      ring.add(timestamp2)
      publication = Publication()
      try repository.rotateRoot(
        change, ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      change = Repository.RootChange()
      change.add = [("root", root3)]
      change.thresholds = ["root": 2]
      ring.add(root3)
      try repository.rotateRoot(
        change, ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      try repository.setTarget(
        path: "a.txt", bytes: Array("a2".utf8), version: "2", rollout: nil, replace: true,
        into: &publication)
      try repository.publish(
        from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      try RepositoryWriter(folder: repo).write(publication)

      // The client that trusted root 1 walks 2, 3 and takes the new target.
      let result = try PublishFixtures.ngclient(
        repo: repo, metadataDir: md, trustedRoot: repo + "/metadata/1.root.json", targets: ["a.txt"]
      )
      #expect(result.rootVersion == 3)
      #expect(result.bytes("a.txt") == Array("a2".utf8))
      // A new client starting from root 1 does the same; so does the engine's verifier.
      let fresh = try PublishFixtures.ngclient(
        repo: repo, metadataDir: dir.path + "/fresh", trustedRoot: repo + "/metadata/1.root.json",
        targets: ["a.txt"])
      #expect(fresh.rootVersion == 3)
      let (trusted, _, bytes) = try PublishFixtures.verify(repo, target: "a.txt")
      #expect(trusted.root.version == 3)
      #expect(trusted.root.roles["root"]?.threshold == 2)
      #expect(bytes == Array("a2".utf8))
    }
  }

  /// Both layouts: consistent snapshots (python-tuf's default) and plain names.
  @Test(arguments: [true, false])
  func publishTakesOverARepositoryPythonTUFMade(consistent: Bool) throws {
    let made = try PythonTUFScript.run(
      "make_takeover_repo.py", prefix: "assetwatch-takeover",
      arguments: [String(Int(Date().timeIntervalSince1970))] + (consistent ? [] : ["plain"]),
      fixtures: PublishFixtures.fixtures
    ).get()
    defer { try? FileManager.default.removeItem(at: made) }
    let repo = made.path + "/repo"
    var ring = KeyRing()
    try ring.addFolder(made.path + "/keys")  // hex seeds, and the targets key as PKCS#8 PEM
    // The key ids python-tuf gave are the ones this code computes.
    let keyIDs = try JSONDecoder().decode(
      [String: String].self, from: Data(contentsOf: made.appendingPathComponent("keyids.json")))
    for (role, id) in keyIDs {
      let text = try String(
        contentsOf: made.appendingPathComponent("keys/\(role).key"), encoding: .utf8)
      #expect(try SigningKey(text: text, source: role).keyID == id, "\(role)")
    }

    // The PEM key works from an environment variable too (CI secrets hold it as it is).
    let pem = try String(
      contentsOf: made.appendingPathComponent("keys/targets.key"), encoding: .utf8)
    var fromEnvironment = KeyRing()
    try fromEnvironment.addEnvironment(["K"], environment: ["K": pem])
    #expect(fromEnvironment.keys.values.first?.keyID == keyIDs["targets"])

    var repository = try Repository.load(folder: repo)
    #expect(repository.targets.version == 1)
    #expect(repository.targetPaths == ["files/hello.txt"])
    #expect(repository.targets.signed["delegations"] != nil)
    #expect(repository.consistentSnapshot == consistent)
    var publication = Publication()
    let v2 = Array("hello from assetwatch publish\n".utf8)
    try repository.setTarget(
      path: "files/hello.txt", bytes: v2, version: "aw-2", rollout: nil, replace: true,
      into: &publication)
    try repository.setTarget(
      path: "files/new.txt", bytes: Array("new\n".utf8), version: "aw-1", rollout: nil,
      replace: false, into: &publication)
    try repository.publish(
      from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
    // And a root rotation on top, signed with python-tuf's root key.
    try repository.rotateRoot(
      Repository.RootChange(), ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
    try RepositoryWriter(folder: repo).write(publication)

    try withTemporaryDirectory { dir in
      let result = try PublishFixtures.ngclient(
        repo: repo, metadataDir: dir.path + "/client", trustedRoot: repo + "/metadata/1.root.json",
        targets: ["files/hello.txt", "files/new.txt", "project/data.bin"])
      #expect(result.rootVersion == 2)
      #expect(result.bytes("files/hello.txt") == v2)
      #expect(result.bytes("files/new.txt") == Array("new\n".utf8))
      // The delegation python-tuf made survives: targets still delegates, snapshot still pins
      // project.json, and ngclient resolves the delegated target.
      #expect(
        result.bytes("project/data.bin")
          == Array(repeating: (0...255).map(UInt8.init), count: 4).flatMap { $0 })
      #expect(result.targets["files/hello.txt"]??.custom?.value["version"] == .string("aw-2"))
    }
    let (trusted, _, bytes) = try PublishFixtures.verify(repo, target: "files/hello.txt")
    #expect(trusted.root.version == 2)
    #expect(bytes == v2)
  }
}
