import Foundation
import TUFPublish

/// The demo's releases as a TUF repository, made with the same code as `assetwatch publish`
/// (`TUFPublish`), in memory: new keys each run, root 1 handed to the demo's config as its
/// trusted root, and every release's files signed as targets named by asset id. It can also
/// play an attacker: serve other bytes under a signed target's name, a timestamp that expired
/// (a freeze attack), or a timestamp signed with a key of its own, so the dashboard shows the engine refusing and keeping its last
/// good copies.
struct SignedDemoRepository: Sendable {
  private var repository: Repository
  private let ring: KeyRing
  /// The files of the repository as served: `metadata/...` and `targets/...`.
  private(set) var files: [String: Data] = [:]
  /// Root version 1, the demo config's trusted root.
  let trustedRoot: Data
  /// The attacker's own signing key (``forgedTimestamp()``).
  private let attackerKey = SigningKey.generate()

  init() throws {
    var keys: [String: [SigningKey]] = [:]
    var ring = KeyRing()
    for role in Repository.topLevelRoles {
      let key = SigningKey.generate()
      keys[role] = [key]
      ring.add(key)
    }
    let (repository, publication) = try Repository.initialize(
      keys: keys, thresholds: [:], expiry: ExpiryPolicy(), now: Date())
    self.repository = repository
    self.ring = ring
    trustedRoot = Data(publication.files.first { $0.path == "metadata/1.root.json" }!.bytes)
    take(publication)
  }

  /// Signs `targets` (path, bytes, version) as the next release; returns the files that changed.
  mutating func publish(_ targets: [(path: String, data: Data, version: String)]) throws
    -> [String: Data]
  {
    var publication = Publication()
    for target in targets {
      let exists = repository.target(target.path) != nil
      try repository.setTarget(
        path: target.path, bytes: [UInt8](target.data), version: target.version, rollout: nil,
        replace: exists, into: &publication)
    }
    try repository.publish(
      from: "targets", ring: ring, expiry: ExpiryPolicy(), now: Date(), into: &publication)
    return take(publication)
  }

  /// Lists `path` as bytes the origin serves itself (the generated model), signed with the
  /// next ``publish(_:)``; returns the name to serve them under (below `targets/`).
  mutating func list(path: String, length: Int, sha256: String, version: String) throws -> String {
    try repository.listTarget(
      path: path, length: Int64(length), sha256: sha256, version: version)
    return repository.storedName(path: path, sha256: sha256)
  }

  /// The stored name (under `targets/`) of target `path`'s current bytes.
  func storedName(_ path: String) -> String? {
    guard let sha = repository.target(path)?["hashes"]?["sha256"]?.stringValue else { return nil }
    return repository.storedName(path: path, sha256: sha)
  }

  /// A timestamp signed with the real key that expired an hour ago (what a freeze attack
  /// replays). Its version is used up: the next release's timestamp is newer still, so a client
  /// that saw this one never takes the next for a replay.
  mutating func expiredTimestamp() throws -> Data {
    var publication = Publication()
    try repository.publish(
      from: "timestamp", ring: ring, expiry: ExpiryPolicy(["timestamp": 60]), now: Date() - 3600,
      into: &publication)
    return Data(publication.files.last!.bytes)
  }

  /// A next timestamp signed by a key of the attacker's own, which root does not name.
  func forgedTimestamp() throws -> Data {
    Data(
      try repository.timestampSigned(
        by: attackerKey, expiry: ExpiryPolicy(), now: Date()))
  }

  @discardableResult
  private mutating func take(_ publication: Publication) -> [String: Data] {
    var changed: [String: Data] = [:]
    for (path, bytes) in publication.files {
      changed[path] = Data(bytes)
      files[path] = Data(bytes)
    }
    return changed
  }
}
