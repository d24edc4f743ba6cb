import AssetJSON
import AssetWatchTestKit
import Crypto
import Foundation
import TUF
import Testing

@testable import TUFPublish

/// SHA-256 in hex, for expectations.
enum SHA256Text {
  static func hex(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
  }
}

/// The publisher's metadata, read back by the engine's own verifier (`TUF`): init, targets,
/// staged rollouts, signing, expiries, interruption, missing keys.
@Suite struct RepositoryTests {
  @Test func initializeWritesAVerifiedRepositoryWithDefaultExpiries() throws {
    try withTemporaryDirectory { dir in
      let now = Date(timeIntervalSince1970: 1_800_000_000)
      let (repository, _, keys) = try PublishFixtures.initialize(in: dir.path, now: now)
      let (trusted, _, _) = try PublishFixtures.verify(dir.path, now: now)
      #expect(trusted.root.version == 1)
      #expect(trusted.root.consistentSnapshot)
      #expect(trusted.timestamp?.version == 1)
      #expect(trusted.snapshot?.version == 1)
      #expect(trusted.targets?.version == 1)
      #expect(trusted.targets?.targets.isEmpty == true)
      // The key ids root gives are sha256 of the canonical public key (checked against
      // python-tuf's in TakeoverTests).
      #expect(trusted.root.roles["targets"]?.keyIDs == [keys["targets"]![0].keyID])
      let day: TimeInterval = 86_400
      #expect(trusted.timestamp?.expires == now + day)
      #expect(trusted.snapshot?.expires == now + 7 * day)
      #expect(trusted.targets?.expires == now + 90 * day)
      #expect(trusted.root.expires == now + 365 * day)
      #expect(repository.timestamp.version == 1)
      let files = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/metadata")
      #expect(
        Set(files) == ["1.root.json", "1.targets.json", "1.snapshot.json", "timestamp.json"])
    }
  }

  @Test func addUpdateStageAndRemoveTargets() throws {
    try withTemporaryDirectory { dir in
      var (repository, ring, _) = try PublishFixtures.initialize(in: dir.path)
      let writer = RepositoryWriter(folder: dir.path)
      let v1 = Array("v1 bytes\n".utf8)
      let v2 = Array("v2 bytes, staged\n".utf8)
      func publish(_ edit: (inout Repository, inout Publication) throws -> Void) throws {
        var publication = Publication()
        try edit(&repository, &publication)
        try repository.publish(
          from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
        try writer.write(publication)
      }
      try publish {
        try $0.setTarget(
          path: "app/flags.json", bytes: v1, version: "7", rollout: nil, replace: false, into: &$1)
      }
      var (trusted, target, bytes) = try PublishFixtures.verify(dir.path, target: "app/flags.json")
      #expect(bytes == v1)
      #expect(target?.custom?["version"] == .string("7"))
      #expect(trusted.targets?.version == 2)
      let v1SHA = target!.hashes["sha256"]!

      // add refuses an existing path; update refuses a new one.
      #expect(throws: PublishError.self) {
        var p = Publication()
        try repository.setTarget(
          path: "app/flags.json", bytes: v2, version: "8", rollout: nil, replace: false, into: &p)
      }
      #expect(throws: PublishError.self) {
        var p = Publication()
        try repository.setTarget(
          path: "nope", bytes: v2, version: "8", rollout: nil, replace: true, into: &p)
      }

      // A staged update names what it replaces as `from`, in the fields RolloutSpec reads.
      try publish {
        try $0.setTarget(
          path: "app/flags.json", bytes: v2, version: "8", rollout: RolloutFields(percent: 10),
          replace: true, into: &$1)
      }
      (trusted, target, bytes) = try PublishFixtures.verify(dir.path, target: "app/flags.json")
      #expect(bytes == v2)
      let rollout = target?.custom?["rollout"]
      #expect(rollout?["percent"] == .integer(10))
      #expect(rollout?["from"]?["version"] == .string("7"))
      #expect(rollout?["from"]?["sha256"] == .string(v1SHA))
      #expect(rollout?["from"]?["size"] == .integer(Int64(v1.count)))
      #expect(rollout?["from"]?["url"] == .string("app/\(v1SHA).flags.json"))
      // The old bytes stay where `from.url` points.
      #expect(try PublishFixtures.read(dir.path, "targets/app/\(v1SHA).flags.json") == v1)

      // Widening without a file keeps the bytes and `from`.
      try publish {
        try $0.setTarget(
          path: "app/flags.json", bytes: nil, version: nil, rollout: RolloutFields(percent: 50),
          replace: true, into: &$1)
      }
      (trusted, target, bytes) = try PublishFixtures.verify(dir.path, target: "app/flags.json")
      #expect(bytes == v2)
      #expect(target?.custom?["rollout"]?["percent"] == .integer(50))
      #expect(target?.custom?["rollout"]?["from"]?["version"] == .string("7"))
      #expect(target?.custom?["version"] == .string("8"))

      // 100 % is no rollout at all.
      try publish {
        try $0.setTarget(
          path: "app/flags.json", bytes: nil, version: nil, rollout: RolloutFields(percent: 100),
          replace: true, into: &$1)
      }
      (trusted, target, bytes) = try PublishFixtures.verify(dir.path, target: "app/flags.json")
      #expect(target?.custom?["rollout"] == nil)
      #expect(target?.custom?["version"] == .string("8"))

      try publish { repository, _ in try repository.removeTarget(path: "app/flags.json") }
      (trusted, target, bytes) = try PublishFixtures.verify(dir.path, target: "app/flags.json")
      #expect(target == nil)
      #expect(trusted.targets?.version == 6)
      #expect(trusted.timestamp?.version == 6)

      // What the folder holds reads back as what was published.
      let loaded = try Repository.load(folder: dir.path)
      #expect(loaded.targets == repository.targets)
      #expect(loaded.timestamp == repository.timestamp)
    }
  }

  @Test func badTargetPathsAndPercentsAreRefusedNamingTheProblem() throws {
    try withTemporaryDirectory { dir in
      var (repository, _, _) = try PublishFixtures.initialize(in: dir.path)
      var p = Publication()
      for path in ["", "/abs", "a/../b", "a//b", "bad\u{1}name"] {
        #expect(throws: PublishError.self) {
          try repository.setTarget(
            path: path, bytes: [1], version: nil, rollout: nil, replace: false, into: &p)
        }
      }
      do {
        try repository.setTarget(
          path: "x", bytes: [1], version: nil, rollout: RolloutFields(percent: 101),
          replace: false, into: &p)
        Issue.record("percent 101 accepted")
      } catch let error as PublishError {
        #expect(error.message.contains("0 to 100"))
      }
    }
  }

  /// Bytes the caller serves itself (the demo's generated model) are listed by length and hash.
  @Test func aTargetListedByLengthAndHashVerifies() throws {
    try withTemporaryDirectory { dir in
      var (repository, ring, _) = try PublishFixtures.initialize(in: dir.path)
      let bytes = Array("made on the fly".utf8)
      let sha = SHA256Text.hex(bytes)
      #expect(throws: PublishError.self) {
        try repository.listTarget(path: "m", length: 1, sha256: "xyz", version: nil)
      }
      try repository.listTarget(
        path: "m", length: Int64(bytes.count), sha256: sha, version: "v1")
      var publication = Publication()
      try repository.publish(
        from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      #expect(!publication.paths.contains { $0.hasPrefix("targets/") })
      try RepositoryWriter(folder: dir.path).write(publication)
      let name = repository.storedName(path: "m", sha256: sha)
      #expect(name == "\(sha).m")
      _ = try dir.file("targets/" + name, Data(bytes))
      let (_, target, served) = try PublishFixtures.verify(dir.path, target: "m")
      #expect(served == bytes)
      #expect(target?.custom?["version"] == .string("v1"))
    }
  }

  @Test func refreshTimestampBumpsOnlyTheTimestamp() throws {
    try withTemporaryDirectory { dir in
      var (repository, ring, _) = try PublishFixtures.initialize(in: dir.path)
      let before = try PublishFixtures.verify(dir.path).0
      var timestampOnly = KeyRing()
      timestampOnly.add(
        ring.keys.values.first { key in
          repository.roleKeys("timestamp").keyIDs.contains(key.keyID)
        }!)
      var publication = Publication()
      let later = Date() + 3600
      try repository.publish(
        from: "timestamp", ring: timestampOnly, expiry: ExpiryPolicy(), now: later,
        into: &publication)
      #expect(publication.paths == ["metadata/timestamp.json"])
      try RepositoryWriter(folder: dir.path).write(publication)
      let after = try PublishFixtures.verify(dir.path).0
      #expect(after.timestamp!.version == before.timestamp!.version + 1)
      #expect(after.timestamp!.expires > before.timestamp!.expires)
      #expect(after.snapshot!.version == before.snapshot!.version)
      #expect(after.targets!.version == before.targets!.version)
      #expect(after.targets!.expires == before.targets!.expires)
    }
  }

  @Test func missingKeysAreRefusedBeforeAnythingIsWritten() throws {
    try withTemporaryDirectory { dir in
      var (repository, ring, keys) = try PublishFixtures.initialize(in: dir.path)
      var noTargets = KeyRing()
      for (publicHex, key) in ring.keys where publicHex != keys["targets"]![0].publicHex {
        noTargets.add(key)
      }
      var publication = Publication()
      do {
        try repository.publish(
          from: "targets", ring: noTargets, expiry: ExpiryPolicy(), now: Date(),
          into: &publication)
        Issue.record("signed without the targets key")
      } catch let error as PublishError {
        #expect(error.message.contains("targets"))
        #expect(error.message.contains("ASSETWATCH_KEY_TARGETS"))
        #expect(error.kind == .usage)
      }
      #expect(publication.files.isEmpty)
    }
  }

  /// A publish interrupted before its timestamp (the last file) leaves what the folder serves
  /// valid: clients still verify the previous version, and the next publish completes.
  @Test func anInterruptedPublishLeavesThePreviousVersionServed() throws {
    try withTemporaryDirectory { dir in
      var (repository, ring, _) = try PublishFixtures.initialize(in: dir.path)
      let v1 = Array("one\n".utf8)
      var publication = Publication()
      try repository.setTarget(
        path: "a.txt", bytes: v1, version: "1", rollout: nil, replace: false, into: &publication)
      try repository.publish(
        from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      try RepositoryWriter(folder: dir.path).write(publication)

      struct Interrupted: Error {}
      var failing = RepositoryWriter(folder: dir.path)
      failing.beforeTimestamp = { throw Interrupted() }
      var next = repository
      publication = Publication()
      try next.setTarget(
        path: "a.txt", bytes: Array("two\n".utf8), version: "2", rollout: nil, replace: true,
        into: &publication)
      try next.publish(
        from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      #expect(publication.paths.last == "metadata/timestamp.json")
      #expect(throws: Interrupted.self) { try failing.write(publication) }
      // The new targets and snapshot are on disk, unreferenced.
      #expect(FileManager.default.fileExists(atPath: dir.path + "/metadata/3.targets.json"))
      let (trusted, target, bytes) = try PublishFixtures.verify(dir.path, target: "a.txt")
      #expect(bytes == v1)
      #expect(target?.custom?["version"] == .string("1"))
      #expect(trusted.timestamp?.version == 2)
      // No temporary file is left where clients look.
      let names = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/metadata")
      #expect(!names.contains { $0.hasPrefix(".") })

      // Starting again from the folder completes the publish.
      var again = try Repository.load(folder: dir.path)
      publication = Publication()
      try again.setTarget(
        path: "a.txt", bytes: Array("two\n".utf8), version: "2", rollout: nil, replace: true,
        into: &publication)
      try again.publish(
        from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      try RepositoryWriter(folder: dir.path).write(publication)
      let (_, target2, bytes2) = try PublishFixtures.verify(dir.path, target: "a.txt")
      #expect(bytes2 == Array("two\n".utf8))
      #expect(target2?.custom?["version"] == .string("2"))
    }
  }

  @Test func rotateRootIsSignedByTheOldAndTheNewRootKeys() throws {
    try withTemporaryDirectory { dir in
      var (repository, ring, keys) = try PublishFixtures.initialize(in: dir.path)
      let newRoot = SigningKey.generate()
      let newTimestamp = SigningKey.generate()
      var change = Repository.RootChange()
      change.add = [("root", newRoot), ("timestamp", newTimestamp)]
      change.remove = [
        ("root", keys["root"]![0].keyID),
        ("timestamp", String(keys["timestamp"]![0].keyID.prefix(8))),
      ]
      // Without the new keys at hand nothing is produced.
      var publication = Publication()
      #expect(throws: PublishError.self) {
        try repository.rotateRoot(
          change, ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      }
      #expect(publication.files.isEmpty)
      var full = ring
      full.add(newRoot)
      full.add(newTimestamp)
      try repository.rotateRoot(
        change, ring: full, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      #expect(publication.paths.suffix(2) == ["metadata/2.root.json", "metadata/timestamp.json"])
      try RepositoryWriter(folder: dir.path).write(publication)
      #expect(Set(repository.root.keyIDsSigned) == [keys["root"]![0].keyID, newRoot.keyID])

      // A client holding root 1 walks to root 2 and trusts the new timestamp key only.
      let (trusted, _, _) = try PublishFixtures.verify(dir.path)
      #expect(trusted.root.version == 2)
      #expect(trusted.root.roles["timestamp"]?.keyIDs == [newTimestamp.keyID])
      #expect(trusted.root.keys[keys["root"]![0].keyID] == nil)

      // The old timestamp key alone no longer publishes.
      var old = KeyRing()
      old.add(keys["timestamp"]![0])
      publication = Publication()
      #expect(throws: PublishError.self) {
        try repository.publish(
          from: "timestamp", ring: old, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      }
      // A threshold above the key count is refused.
      var bad = Repository.RootChange()
      bad.thresholds = ["root": 2]
      #expect(throws: PublishError.self) {
        try repository.rotateRoot(
          bad, ring: full, expiry: ExpiryPolicy(), now: Date(), into: &publication)
      }
    }
  }

  @Test func statusNamesWhatExpiresSoonInTextAndJSON() throws {
    try withTemporaryDirectory { dir in
      let now = Date(timeIntervalSince1970: 1_800_000_000)
      var (repository, _, _) = try PublishFixtures.initialize(in: dir.path, now: now)
      var publication = Publication()
      try repository.setTarget(
        path: "a.txt", bytes: [1, 2, 3], version: "v9", rollout: RolloutFields(percent: 5),
        replace: false, into: &publication)
      // 20 hours later the timestamp (1 day) is within its 6-hour window; nothing else is.
      let later = now + 20 * 3600
      var status = RepositoryStatus(try Repository.load(folder: dir.path), now: later)
      #expect(status.expiringSoon == ["timestamp"])
      #expect(status.roles.map(\.role) == ["root", "targets", "snapshot", "timestamp"])
      #expect(status.roles.allSatisfy { !$0.expired })
      #expect(status.text(now: later).contains { $0.contains("expires soon (in 4h)") })
      // A day later it has expired.
      status = RepositoryStatus(repository, now: now + 86_400)
      #expect(status.roles.first { $0.role == "timestamp" }?.expired == true)
      #expect(status.targets.first?.rolloutPercent == 5)
      #expect(status.targets.first?.version == "v9")
      let json = try OrderedJSONEncoder().encode(status)
      let parsed = try JSONParser.parse(Array(json.utf8))
      #expect(parsed["consistentSnapshot"] == .bool(true))
      #expect(parsed["roles"]?.arrayValue?.first?["version"] == .integer(1))
      #expect(parsed["expiringSoon"] == .array([.string("timestamp")]))
      // Keys in the documented order.
      let order = ["consistentSnapshot", "roles", "expiringSoon", "targets"].map {
        json.range(of: "\"\($0)\"", options: .backwards)!.lowerBound
      }
      #expect(order == order.sorted())
    }
  }

  @Test func keyFilesAreOwnerOnlyNeverOverwrittenAndNeverQuoted() throws {
    try withTemporaryDirectory { dir in
      let key = SigningKey.generate()
      let path = dir.path + "/keys/targets.key"
      try KeyRing.writeKeyFile(key, to: path)
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
      #expect((attributes[.posixPermissions] as? Int) == 0o600)
      #expect(throws: PublishError.self) {
        try KeyRing.writeKeyFile(SigningKey.generate(), to: path)
      }
      var ring = KeyRing()
      try ring.addFolder(dir.path + "/keys")
      #expect(ring.key(publicHex: key.publicHex)?.keyID == key.keyID)
      #expect(!"\(key)".contains(key.fileText.prefix(16)))

      // A bad key names its source, never its text.
      let secret = String(repeating: "z", count: 64)
      do {
        try ring.addEnvironment(
          ["ASSETWATCH_KEY_TARGETS"], environment: ["ASSETWATCH_KEY_TARGETS": secret])
        Issue.record("a bad key accepted")
      } catch let error as PublishError {
        #expect(error.message.contains("$ASSETWATCH_KEY_TARGETS"))
        #expect(!error.message.contains(secret))
      }
      var envRing = KeyRing()
      try envRing.addEnvironment(
        ["K"], environment: ["K": key.fileText.trimmingCharacters(in: .newlines)])
      #expect(envRing.key(publicHex: key.publicHex) != nil)
    }
  }
}
