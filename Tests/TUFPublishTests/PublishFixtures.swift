import AssetJSON
import AssetWatchTestKit
import Foundation
import TUF
import Testing

@testable import TUFPublish

/// Shared helpers: a repository made by `Repository.initialize` into a temporary folder, the
/// engine's own verifier reading it back, and python-tuf's ngclient reading it over http.
enum PublishFixtures {
  static let fixtures = "Tests/TUFPublishTests/Fixtures"

  /// `assetwatch publish init` (the built binary) of `dir/site` with its keys in `dir/keys`,
  /// expected to succeed; returns the two paths.
  static func initWithBinary(in dir: TemporaryDirectory) async throws -> (
    repo: String, keys: String
  ) {
    let repo = dir.path + "/site"
    let keys = dir.path + "/keys"
    let result = try await PublishCommandTests.run(["init", "--repo", repo, "--keys-dir", keys])
    #expect(result.status == 0, "\(result.stderr)")
    return (repo, keys)
  }

  /// One key per role, a ring holding them all.
  static func keys() -> ([String: [SigningKey]], KeyRing) {
    var ring = KeyRing()
    var keys: [String: [SigningKey]] = [:]
    for role in Repository.topLevelRoles {
      let key = SigningKey.generate()
      keys[role] = [key]
      ring.add(key)
    }
    return (keys, ring)
  }

  /// A new repository written into `folder`.
  static func initialize(in folder: String, now: Date = Date()) throws -> (
    Repository, KeyRing, [String: [SigningKey]]
  ) {
    let (keys, ring) = keys()
    let (repository, publication) = try Repository.initialize(
      keys: keys, thresholds: [:], expiry: ExpiryPolicy(), now: now)
    try RepositoryWriter(folder: folder).write(publication)
    return (repository, ring, keys)
  }

  static func read(_ folder: String, _ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(path)))
  }

  /// What a client trusting `trustedRoot` (a path in the folder) verifies, walking root
  /// versions N+1... as the spec's client workflow does: the trusted set and the bytes of
  /// target `path` (checked against its signed length and hash), if listed.
  static func verify(
    _ folder: String, trustedRoot: String = "metadata/1.root.json", target path: String? = nil,
    now: Date = Date()
  ) throws -> (TrustedMetadataSet, TargetFile?, [UInt8]?) {
    var trusted = try TrustedMetadataSet(trustedRoot: read(folder, trustedRoot), now: now)
    while let next = try? read(folder, "metadata/\(trusted.root.version + 1).root.json") {
      try trusted.updateRoot(next)
    }
    try trusted.updateTimestamp(read(folder, "metadata/timestamp.json"))
    let consistent = trusted.root.consistentSnapshot
    let snapshotVersion = trusted.timestamp!.snapshotMeta.version
    try trusted.updateSnapshot(
      read(folder, "metadata/" + (consistent ? "\(snapshotVersion)." : "") + "snapshot.json"))
    let targetsVersion = trusted.snapshot!.meta["targets.json"]!.version
    try trusted.updateTargets(
      read(folder, "metadata/" + (consistent ? "\(targetsVersion)." : "") + "targets.json"))
    guard let path, let target = trusted.targets!.targets[path] else { return (trusted, nil, nil) }
    let name = consistent ? target.consistentFileNames().first! : path
    let bytes = try read(folder, "targets/\(name)")
    try target.verify(bytes)
    return (trusted, target, bytes)
  }

  /// ngclient's result (see Fixtures/ngclient_fetch.py) reading `repo` with `metadataDir`.
  struct NgclientResult: Decodable {
    struct Target: Decodable {
      var hex: String
      var custom: JSONAny?
    }
    var rootVersion: Int
    var timestampVersion: Int
    var targets: [String: Target?]

    enum CodingKeys: String, CodingKey {
      case rootVersion = "root_version"
      case timestampVersion = "timestamp_version"
      case targets
    }

    func bytes(_ path: String) -> [UInt8]? {
      guard let t = targets[path] ?? nil else { return nil }
      var out: [UInt8] = []
      var i = t.hex.startIndex
      while i < t.hex.endIndex {
        let j = t.hex.index(i, offsetBy: 2)
        out.append(UInt8(t.hex[i..<j], radix: 16)!)
        i = j
      }
      return out
    }
  }

  /// Any JSON, kept as text for comparisons.
  struct JSONAny: Decodable {
    var value: JSONValue
    init(from decoder: Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let i = try? container.decode(Int64.self) {
        value = .integer(i)
      } else if let s = try? container.decode(String.self) {
        value = .string(s)
      } else if let b = try? container.decode(Bool.self) {
        value = .bool(b)
      } else if let o = try? container.decode([String: JSONAny].self) {
        value = .object(o.mapValues(\.value))
      } else if let a = try? container.decode([JSONAny].self) {
        value = .array(a.map(\.value))
      } else {
        value = .null
      }
    }
  }

  static func ngclient(
    repo: String, metadataDir: String, trustedRoot: String, targets: [String]
  ) throws -> NgclientResult {
    let out = try PythonTUFScript.run(
      "ngclient_fetch.py", prefix: "assetwatch-ngclient",
      arguments: [repo, metadataDir, trustedRoot] + targets, fixtures: fixtures
    ).get()
    defer { try? FileManager.default.removeItem(at: out) }
    let data = try Data(contentsOf: out.appendingPathComponent("result.json"))
    return try JSONDecoder().decode(NgclientResult.self, from: data)
  }
}
