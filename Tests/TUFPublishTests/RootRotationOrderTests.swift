import AssetWatchTestKit
import Foundation
import Synchronization
import TUF
import Testing

@testable import TUFPublish

/// Clients fetch `N+1.root.json` before anything else, so a new root goes live as soon as it is
/// written: the writer writes it after targets and snapshot, right before the timestamp, and a
/// rotation interrupted before it leaves clients on the previous root.
@Suite struct RootRotationOrderTests {
  /// A rotation taking the timestamp key off (and giving it a new one) of a fresh repository in
  /// `folder`, with the files it writes.
  static func rotation(in folder: String) throws -> (
    Repository.RootChange, KeyRing, Publication
  ) {
    var (repository, ring, keys) = try PublishFixtures.initialize(in: folder)
    var publication = Publication()
    try repository.setTarget(
      path: "a.txt", bytes: Array("one\n".utf8), version: "1", rollout: nil, replace: false,
      into: &publication)
    try repository.publish(
      from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
    try RepositoryWriter(folder: folder).write(publication)
    let newTimestamp = SigningKey.generate()
    ring.add(newTimestamp)
    var change = Repository.RootChange()
    change.add = [("timestamp", newTimestamp)]
    change.remove = [("timestamp", keys["timestamp"]![0].keyID)]
    publication = Publication()
    try repository.rotateRoot(
      change, ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
    return (change, ring, publication)
  }

  @Test func theNewRootIsWrittenAfterTargetsAndSnapshotRightBeforeTheTimestamp() throws {
    try withTemporaryDirectory { dir in
      let (_, _, publication) = try Self.rotation(in: dir.path)
      let written = Mutex<[String]>([])
      var writer = RepositoryWriter(folder: dir.path)
      writer.beforeFile = { path in written.withLock { $0.append(path) } }
      try writer.write(publication)
      let order = written.withLock { $0 }
      #expect(
        order == [
          "metadata/3.targets.json", "metadata/3.snapshot.json", "metadata/2.root.json",
          "metadata/timestamp.json",
        ])
      // The publication lists them so too.
      #expect(publication.paths == order)
      let (trusted, _, _) = try PublishFixtures.verify(dir.path)
      #expect(trusted.root.version == 2)
      #expect(trusted.timestamp?.version == 3)
    }
  }

  /// Whatever order a publication lists them in, the writer keeps a root for just before the
  /// timestamp.
  @Test func theWriterHoldsBackARootListedFirst() throws {
    try withTemporaryDirectory { dir in
      var publication = Publication()
      publication.add("metadata/7.root.json", Array("{}".utf8))
      publication.add("metadata/timestamp.json", Array("{}".utf8))
      publication.add("targets/x", [1])
      publication.add("metadata/4.snapshot.json", Array("{}".utf8))
      let written = Mutex<[String]>([])
      var writer = RepositoryWriter(folder: dir.path)
      writer.beforeFile = { path in written.withLock { $0.append(path) } }
      try writer.write(publication)
      #expect(
        written.withLock { $0 } == [
          "targets/x", "metadata/4.snapshot.json", "metadata/7.root.json",
          "metadata/timestamp.json",
        ])
    }
  }

  @Test func aRotationInterruptedAfterTheSnapshotPublishesNoNewRoot() throws {
    try withTemporaryDirectory { dir in
      let (change, ring, publication) = try Self.rotation(in: dir.path)
      struct Interrupted: Error {}
      var failing = RepositoryWriter(folder: dir.path)
      failing.beforeFile = { path in
        if path.hasSuffix("root.json") { throw Interrupted() }
      }
      #expect(throws: Interrupted.self) { try failing.write(publication) }
      let metadata = dir.path + "/metadata"
      #expect(FileManager.default.fileExists(atPath: metadata + "/3.snapshot.json"))
      #expect(!FileManager.default.fileExists(atPath: metadata + "/2.root.json"))
      // Clients stay on root 1 and the previous timestamp, which it still trusts.
      let (trusted, target, bytes) = try PublishFixtures.verify(dir.path, target: "a.txt")
      #expect(trusted.root.version == 1)
      #expect(trusted.timestamp?.version == 2)
      #expect(bytes == Array("one\n".utf8))
      #expect(target != nil)

      // Running the rotation again from the folder completes it.
      var again = try Repository.load(folder: dir.path)
      #expect(again.root.version == 1)
      var next = Publication()
      try again.rotateRoot(change, ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &next)
      try RepositoryWriter(folder: dir.path).write(next)
      let (after, _, _) = try PublishFixtures.verify(dir.path, target: "a.txt")
      #expect(after.root.version == 2)
      #expect(after.root.roles["timestamp"]?.keyIDs == change.add.map(\.key.keyID))
    }
  }
}
