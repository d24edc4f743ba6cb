import AssetJSON
import Crypto
import Foundation

/// A TUF repository as its publisher holds it: the newest root, timestamp, snapshot and
/// (top-level) targets metadata, read from a folder laid out as a static server serves it:
///
/// ```
/// FOLDER/metadata/N.root.json            every root version, kept (clients walk N+1, N+2, ...)
/// FOLDER/metadata/timestamp.json         the entry point, written last
/// FOLDER/metadata/V.snapshot.json        consistent snapshots (snapshot.json otherwise)
/// FOLDER/metadata/V.targets.json         (targets.json otherwise)
/// FOLDER/targets/DIR/SHA256.NAME         a target's bytes under its hash-prefixed name
/// ```
///
/// Every change is a value-type edit that returns a ``Publication`` (the files to write, the
/// timestamp last); nothing here touches the disk except ``load(folder:)``.
package struct Repository: Sendable {
  package static let topLevelRoles = ["root", "targets", "snapshot", "timestamp"]

  package internal(set) var root: SignedMetadata
  package internal(set) var timestamp: SignedMetadata
  package internal(set) var snapshot: SignedMetadata
  package internal(set) var targets: SignedMetadata

  /// Whether root asks for `N.role.json` metadata and hash-prefixed target names.
  package var consistentSnapshot: Bool { root.signed["consistent_snapshot"]?.boolValue ?? false }

  // MARK: Reading

  /// Reads the repository in `folder` (one `publish init` made, or another TUF tool).
  package static func load(folder: String) throws(PublishError) -> Repository {
    let metadata = (folder as NSString).appendingPathComponent("metadata")
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: metadata)
    } catch {
      throw PublishError(
        "\(folder) is not a TUF repository folder (no metadata/ folder; run publish init)")
    }
    func read(_ name: String, role: String) throws(PublishError) -> SignedMetadata {
      let path = (metadata as NSString).appendingPathComponent(name)
      guard let data = FileManager.default.contents(atPath: path) else {
        throw PublishError("the repository has no metadata/\(name)")
      }
      return try SignedMetadata.parse([UInt8](data), role: role, file: "metadata/\(name)")
    }
    let rootVersions = names.compactMap { name -> Int? in
      guard name.hasSuffix(".root.json") else { return nil }
      return Int(name.dropLast(".root.json".count))
    }
    let root = try read(rootVersions.max().map { "\($0).root.json" } ?? "root.json", role: "root")
    let consistent = root.signed["consistent_snapshot"]?.boolValue ?? false
    let timestamp = try read("timestamp.json", role: "timestamp")
    guard let snapshotVersion = timestamp.signed["meta"]?["snapshot.json"]?["version"]?.integerValue
    else { throw PublishError("metadata/timestamp.json names no snapshot.json version") }
    let snapshot = try read(
      consistent ? "\(snapshotVersion).snapshot.json" : "snapshot.json", role: "snapshot")
    guard let targetsVersion = snapshot.signed["meta"]?["targets.json"]?["version"]?.integerValue
    else { throw PublishError("the snapshot names no targets.json version") }
    let targets = try read(
      consistent ? "\(targetsVersion).targets.json" : "targets.json", role: "targets")
    return Repository(root: root, timestamp: timestamp, snapshot: snapshot, targets: targets)
  }

  init(
    root: SignedMetadata, timestamp: SignedMetadata, snapshot: SignedMetadata,
    targets: SignedMetadata
  ) {
    self.root = root
    self.timestamp = timestamp
    self.snapshot = snapshot
    self.targets = targets
  }

  // MARK: Keys and roles

  /// The key ids and threshold of top-level `role` in the current root.
  package func roleKeys(_ role: String) -> (keyIDs: [String], threshold: Int) {
    Repository.roleKeys(role, in: root.signed)
  }

  static func roleKeys(_ role: String, in rootSigned: [String: JSONValue]) -> (
    keyIDs: [String], threshold: Int
  ) {
    let entry = rootSigned["roles"]?[role]
    let ids = entry?["keyids"]?.arrayValue?.compactMap(\.stringValue) ?? []
    return (ids, Int(entry?["threshold"]?.integerValue ?? 1))
  }

  /// The keys of `ring` that may sign `role` under `rootSigned`, with the key id root gives
  /// each; throws unless they reach the threshold.
  static func signers(
    for role: String, in rootSigned: [String: JSONValue], ring: KeyRing, purpose: String? = nil
  ) throws(PublishError) -> [(keyID: String, key: SigningKey)] {
    let (ids, threshold) = roleKeys(role, in: rootSigned)
    var found: [(keyID: String, key: SigningKey)] = []
    for id in ids {
      guard let entry = rootSigned["keys"]?[id], entry["keytype"]?.stringValue == "ed25519",
        let publicHex = entry["keyval"]?["public"]?.stringValue,
        let key = ring.key(publicHex: publicHex)
      else { continue }
      found.append((id, key))
    }
    guard found.count >= threshold else {
      let env = "ASSETWATCH_KEY_\(role.uppercased())"
      throw PublishError(
        "signing \(purpose ?? role) needs \(threshold) of the \(ids.count) \(role) key(s) root names; "
          + "\(found.count) found (put the key file in --keys-dir or the key in $\(env))")
    }
    return found
  }

  // MARK: Targets

  /// The target paths the top-level targets metadata lists, sorted.
  package var targetPaths: [String] {
    (targets.signed["targets"]?.objectValue ?? [:]).keys.sorted()
  }

  /// The entry of target `path`, if listed.
  package func target(_ path: String) -> JSONValue? { targets.signed["targets"]?[path] }

  /// The name a target's bytes are stored under, relative to the targets folder (URL).
  package func storedName(path: String, sha256: String) -> String {
    guard consistentSnapshot else { return path }
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    let base = "\(sha256).\(parts.last!)"
    return (parts.dropLast().map(String.init) + [base]).joined(separator: "/")
  }
}

/// Files to write, in order; ``RepositoryWriter`` writes a new root (`metadata/N.root.json`)
/// after the others and `metadata/timestamp.json` last.
package struct Publication: Sendable {
  package var files: [(path: String, bytes: [UInt8])] = []

  package init() {}

  mutating func add(_ path: String, _ bytes: [UInt8]) { files.append((path, bytes)) }

  /// The relative paths, in order.
  package var paths: [String] { files.map(\.path) }
}
