import AssetJSON
import Crypto
import Foundation

/// A target's staged rollout as the engine reads it from `custom.rollout`.
package struct RolloutFields: Sendable, Equatable {
  /// 0 to 100 (canonical JSON has integers only).
  package var percent: Int
  package init(percent: Int) { self.percent = percent }
}

extension Repository {
  /// A new repository: root version 1 with `keys` per role and `thresholds` (default 1),
  /// consistent snapshots, empty targets, snapshot and timestamp version 1, all signed.
  package static func initialize(
    keys: [String: [SigningKey]], thresholds: [String: Int], expiry: ExpiryPolicy, now: Date
  ) throws(PublishError) -> (Repository, Publication) {
    var keyObjects: [String: JSONValue] = [:]
    var roles: [String: JSONValue] = [:]
    var ring = KeyRing()
    for role in topLevelRoles {
      let roleKeys = keys[role] ?? []
      let threshold = thresholds[role] ?? 1
      guard !roleKeys.isEmpty else { throw PublishError("role \(role) has no key") }
      guard (1...roleKeys.count).contains(threshold) else {
        throw PublishError(
          "the \(role) threshold \(threshold) must be between 1 and its \(roleKeys.count) key(s)")
      }
      for key in roleKeys {
        keyObjects[key.keyID] = key.publicKeyJSON
        ring.add(key)
      }
      roles[role] = .object([
        "keyids": .array(roleKeys.map { .string($0.keyID) }),
        "threshold": .integer(Int64(threshold)),
      ])
    }
    let root = SignedMetadata.new(
      role: "root", type: "root", version: 1, expires: expiry.expiry(of: "root", now: now),
      fields: [
        "keys": .object(keyObjects), "roles": .object(roles), "consistent_snapshot": .bool(true),
      ])
    let targets = SignedMetadata.new(
      role: "targets", type: "targets", version: 0, expires: now, fields: ["targets": .object([:])])
    let snapshot = SignedMetadata.new(
      role: "snapshot", type: "snapshot", version: 0, expires: now, fields: ["meta": .object([:])])
    let timestamp = SignedMetadata.new(
      role: "timestamp", type: "timestamp", version: 0, expires: now, fields: ["meta": .object([:])]
    )
    var repository = Repository(
      root: root, timestamp: timestamp, snapshot: snapshot, targets: targets)
    var publication = Publication()
    try repository.root.sign(with: signers(for: "root", in: root.signed, ring: ring))
    publication.add("metadata/1.root.json", repository.root.bytes)
    try repository.publish(
      from: "targets", ring: ring, expiry: expiry, now: now, into: &publication)
    return (repository, publication)
  }

  /// Lists `bytes` as target `path` (add when `replace` is false: the path must be new; update
  /// when true: it must exist). `version` goes to `custom.version`; `rollout` below 100 stages
  /// it, with `from` what the instances held back serve: the target it replaces (its version,
  /// stored name, size and SHA-256) when that one is fully rolled out, else (it is staged, or
  /// halted at 0) that target's own `from`, carried over unchanged (none when it has none: held
  /// back instances then keep what they serve), so a fix after a halt never hands the halted
  /// bytes to the instances held back. `bytes` nil (update only) keeps the listed bytes, their
  /// `from` too, and changes the version or rollout (dropping `publish guard`'s evidence: a
  /// new rollout starts).
  package mutating func setTarget(
    path: String, bytes: [UInt8]?, version: String?, rollout: RolloutFields?, replace: Bool,
    into publication: inout Publication
  ) throws(PublishError) {
    try Repository.checkTargetPath(path)
    if let version { try Repository.checkText(version, what: "the version") }
    let old = target(path)
    if replace && old == nil { throw PublishError("no target \(path) to update (use add)") }
    if !replace && old != nil { throw PublishError("target \(path) exists already (use update)") }
    if let rollout, !(0...100).contains(rollout.percent) {
      throw PublishError("--rollout \(rollout.percent): a percent from 0 to 100")
    }
    var entry: [String: JSONValue]
    var custom: [String: JSONValue] = old?["custom"]?.objectValue ?? [:]
    if let bytes {
      let sha = Hex.encode(SHA256.hash(data: bytes))
      entry = ["length": .integer(Int64(bytes.count)), "hashes": .object(["sha256": .string(sha)])]
      publication.add("targets/" + storedName(path: path, sha256: sha), bytes)
      custom["version"] = version.map(JSONValue.string)
      if let rollout, rollout.percent < 100 {
        var spec: [String: JSONValue] = ["percent": .integer(Int64(rollout.percent))]
        if let old, let from = heldBackServe(replacing: old, path: path, newSHA256: sha) {
          spec["from"] = from
        }
        custom["rollout"] = .object(spec)
      } else {
        custom["rollout"] = nil
      }
    } else {
      guard let old = old?.objectValue else { throw PublishError("update \(path) needs a file") }
      entry = old
      entry["custom"] = nil
      if let version { custom["version"] = .string(version) }
      if let rollout {
        if rollout.percent >= 100 {
          custom["rollout"] = nil
        } else {
          var spec = custom["rollout"]?.objectValue ?? [:]
          spec["percent"] = .integer(Int64(rollout.percent))
          custom["rollout"] = .object(spec)
        }
      }
      // A person's step starts a new rollout: the guard's evidence goes, so `publish guard`
      // starts from this percent (and never widens a target it halted on its own).
      if var spec = custom["rollout"]?.objectValue, spec["guard"] != nil {
        spec["guard"] = nil
        custom["rollout"] = .object(spec)
      }
    }
    if !custom.isEmpty { entry["custom"] = .object(custom) }
    var list = targets.signed["targets"]?.objectValue ?? [:]
    list[path] = .object(entry)
    targets.signed["targets"] = .object(list)
  }

  /// The `from` of a staged target replacing `old` with bytes of SHA-256 `newSHA256`: what the
  /// instances held back serve. `old` staged (a `custom.rollout` below 100 %, halted at 0
  /// included, and not `critical`): its own `from`, unchanged, or nil when it has none (the
  /// held-back instances never took `old`). `old` fully rolled out: `old` itself, unless it is
  /// the same bytes.
  func heldBackServe(replacing old: JSONValue, path: String, newSHA256: String) -> JSONValue? {
    let custom = old["custom"]
    if let rollout = custom?["rollout"], rollout.objectValue != nil,
      custom?["critical"]?.boolValue != true
    {
      let fullyOut = rollout["percent"]?.integerValue.map { $0 >= 100 } ?? false
      if !fullyOut { return rollout["from"].flatMap { $0.objectValue == nil ? nil : $0 } }
    }
    guard let oldSHA = old["hashes"]?["sha256"]?.stringValue, oldSHA != newSHA256 else {
      return nil
    }
    var from: [String: JSONValue] = [
      "url": .string(storedName(path: path, sha256: oldSHA)),
      "sha256": .string(oldSHA),
    ]
    if let length = old["length"] { from["size"] = length }
    if let oldVersion = custom?["version"] { from["version"] = oldVersion }
    return .object(from)
  }

  /// Lists target `path` as `length` bytes of SHA-256 `sha256` that the caller stores (or
  /// serves) under ``storedName(path:sha256:)`` itself: for bytes too large to hold in memory or
  /// made on the fly. Add or replace; any rollout is dropped.
  package mutating func listTarget(path: String, length: Int64, sha256: String, version: String?)
    throws(PublishError)
  {
    try Repository.checkTargetPath(path)
    guard sha256.utf8.count == 64, Hex.decode(sha256) != nil, length >= 0 else {
      throw PublishError("target \(path): a length and 64 hex digits of SHA-256 are needed")
    }
    var entry: [String: JSONValue] = [
      "length": .integer(length), "hashes": .object(["sha256": .string(sha256.lowercased())]),
    ]
    if let version {
      try Repository.checkText(version, what: "the version")
      entry["custom"] = .object(["version": .string(version)])
    }
    var list = targets.signed["targets"]?.objectValue ?? [:]
    list[path] = .object(entry)
    targets.signed["targets"] = .object(list)
  }

  /// Stops listing target `path` (its stored bytes stay: clients mid-update may still fetch them).
  package mutating func removeTarget(path: String) throws(PublishError) {
    var list = targets.signed["targets"]?.objectValue ?? [:]
    guard list.removeValue(forKey: path) != nil else { throw PublishError("no target \(path)") }
    targets.signed["targets"] = .object(list)
  }

  /// Signs `from` and the roles after it anew with the next versions and fresh expiries:
  /// `targets` → targets, snapshot, timestamp; `snapshot` → snapshot, timestamp; `timestamp`
  /// → timestamp. Files go into `publication`, the timestamp last.
  package mutating func publish(
    from role: String, ring: KeyRing, expiry: ExpiryPolicy, now: Date,
    into publication: inout Publication
  ) throws(PublishError) {
    guard let start = ["targets", "snapshot", "timestamp"].firstIndex(of: role) else {
      throw PublishError(
        "sign --role \(role): use targets, snapshot or timestamp (rotate-root signs root)")
    }
    let prefix = consistentSnapshot
    // Check every key is at hand before changing anything.
    for step in ["targets", "snapshot", "timestamp"][start...] {
      _ = try Repository.signers(for: step, in: root.signed, ring: ring)
    }
    if start <= 0 {
      targets.renew(version: targets.version + 1, expires: expiry.expiry(of: "targets", now: now))
      try targets.sign(with: Repository.signers(for: "targets", in: root.signed, ring: ring))
      publication.add(
        "metadata/" + (prefix ? "\(targets.version).targets.json" : "targets.json"), targets.bytes)
      var meta = snapshot.signed["meta"]?.objectValue ?? [:]
      meta["targets.json"] = .object(["version": .integer(targets.version)])
      snapshot.signed["meta"] = .object(meta)
    }
    if start <= 1 {
      snapshot.renew(
        version: snapshot.version + 1, expires: expiry.expiry(of: "snapshot", now: now))
      try snapshot.sign(with: Repository.signers(for: "snapshot", in: root.signed, ring: ring))
      publication.add(
        "metadata/" + (prefix ? "\(snapshot.version).snapshot.json" : "snapshot.json"),
        snapshot.bytes)
      let bytes = snapshot.bytes
      timestamp.signed["meta"] = .object([
        "snapshot.json": .object([
          "version": .integer(snapshot.version), "length": .integer(Int64(bytes.count)),
          "hashes": .object(["sha256": .string(Hex.encode(SHA256.hash(data: bytes)))]),
        ])
      ])
    }
    timestamp.renew(
      version: timestamp.version + 1, expires: expiry.expiry(of: "timestamp", now: now))
    try timestamp.sign(with: Repository.signers(for: "timestamp", in: root.signed, ring: ring))
    publication.add("metadata/timestamp.json", timestamp.bytes)
  }

  /// A next timestamp signed by `key` alone, whatever root says (the signed demo's attacker
  /// forging one with a key of its own); the repository is unchanged. Clients must refuse it.
  package func timestampSigned(by key: SigningKey, expiry: ExpiryPolicy, now: Date)
    throws(PublishError) -> [UInt8]
  {
    var forged = timestamp
    forged.renew(version: timestamp.version + 1, expires: expiry.expiry(of: "timestamp", now: now))
    try forged.sign(with: [(key.keyID, key)])
    return forged.bytes
  }

  /// What a root rotation changes.
  package struct RootChange: Sendable {
    /// Keys to add, by role.
    package var add: [(role: String, key: SigningKey)] = []
    /// Key ids (or a unique prefix of at least 8 hex digits) to take off a role.
    package var remove: [(role: String, keyID: String)] = []
    package var thresholds: [String: Int] = [:]
    package init() {}
  }

  /// Root version N+1 with `change` applied, signed by the threshold of the old root's root
  /// keys and of the new one's; then targets, snapshot and timestamp signed anew under it (so
  /// a rotated timestamp or snapshot key takes effect at once). Written as `N+1.root.json`,
  /// after targets and snapshot and right before the timestamp: clients fetch the next root
  /// before anything else, so it must not be served before the files signed under it.
  package mutating func rotateRoot(
    _ change: RootChange, ring: KeyRing, expiry: ExpiryPolicy, now: Date,
    into publication: inout Publication
  ) throws(PublishError) {
    let old = root.signed
    var signed = old
    var keys = signed["keys"]?.objectValue ?? [:]
    var roles = signed["roles"]?.objectValue ?? [:]
    for (role, keyID) in change.remove {
      try Repository.checkRole(role)
      var ids = roles[role]?["keyids"]?.arrayValue?.compactMap(\.stringValue) ?? []
      let matches = ids.filter { $0 == keyID || (keyID.count >= 8 && $0.hasPrefix(keyID)) }
      guard matches.count == 1 else {
        throw PublishError("the \(role) role has no key \(keyID) (or more than one starts so)")
      }
      ids.removeAll { $0 == matches[0] }
      roles[role] = .object(
        [
          "keyids": .array(ids.map(JSONValue.string)),
          "threshold": roles[role]?["threshold"] ?? .integer(1),
        ])
    }
    for (role, key) in change.add {
      try Repository.checkRole(role)
      var ids = roles[role]?["keyids"]?.arrayValue?.compactMap(\.stringValue) ?? []
      // Reuse the id root already gives this package key (another tool may compute ids otherwise).
      let existing = keys.first { $0.value["keyval"]?["public"]?.stringValue == key.publicHex }?.key
      let id = existing ?? key.keyID
      keys[id] = keys[id] ?? key.publicKeyJSON
      if !ids.contains(id) { ids.append(id) }
      roles[role] = .object(
        [
          "keyids": .array(ids.map(JSONValue.string)),
          "threshold": roles[role]?["threshold"] ?? .integer(1),
        ])
    }
    for (role, threshold) in change.thresholds {
      try Repository.checkRole(role)
      var entry = roles[role]?.objectValue ?? [:]
      entry["threshold"] = .integer(Int64(threshold))
      roles[role] = .object(entry)
    }
    for role in Repository.topLevelRoles {
      let count = roles[role]?["keyids"]?.arrayValue?.count ?? 0
      let threshold = roles[role]?["threshold"]?.integerValue ?? 1
      guard count > 0 else { throw PublishError("the \(role) role would have no key left") }
      guard threshold >= 1, threshold <= count else {
        throw PublishError(
          "the \(role) threshold \(threshold) must be between 1 and its \(count) key(s)")
      }
    }
    // Keys no role names any more leave root.
    let used = Set(
      roles.values.flatMap { $0["keyids"]?.arrayValue?.compactMap(\.stringValue) ?? [] })
    keys = keys.filter { used.contains($0.key) }
    signed["keys"] = .object(keys)
    signed["roles"] = .object(roles)
    let oldSigners = try Repository.signers(
      for: "root", in: old, ring: ring, purpose: "the new root (old root keys)")
    let newSigners = try Repository.signers(
      for: "root", in: signed, ring: ring, purpose: "the new root (new root keys)")
    // Check the other roles' keys before writing anything.
    for role in ["targets", "snapshot", "timestamp"] {
      _ = try Repository.signers(for: role, in: signed, ring: ring)
    }
    var newRoot = SignedMetadata(role: "root", signed: signed)
    newRoot.renew(version: root.version + 1, expires: expiry.expiry(of: "root", now: now))
    var all = oldSigners
    for s in newSigners where !all.contains(where: { $0.keyID == s.keyID }) { all.append(s) }
    try newRoot.sign(with: all)
    root = newRoot
    try publish(from: "targets", ring: ring, expiry: expiry, now: now, into: &publication)
    // Clients take a new root as soon as it is served: list it after targets and snapshot,
    // right before the timestamp (``RepositoryWriter`` writes it there in any case).
    let at = publication.files.lastIndex { $0.path == "metadata/timestamp.json" }
    publication.files.insert(
      ("metadata/\(root.version).root.json", root.bytes), at: at ?? publication.files.endIndex)
  }

  static func checkRole(_ role: String) throws(PublishError) {
    guard topLevelRoles.contains(role) else {
      throw PublishError("\(role) is not a role (root, targets, snapshot or timestamp)")
    }
  }

  /// A target path: relative, `/`-separated, no empty, `.` or `..` parts, no control characters.
  static func checkTargetPath(_ path: String) throws(PublishError) {
    try checkText(path, what: "the target path")
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard !path.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
      throw PublishError(
        "the target path \"\(path)\" must be relative, with no empty, . or .. parts")
    }
  }

  static func checkText(_ text: String, what: String) throws(PublishError) {
    guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
      text.utf8.count <= 1024
    else { throw PublishError("\(what) has control characters or is too long") }
  }
}
