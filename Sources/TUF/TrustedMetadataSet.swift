import Foundation

/// The client's trusted TUF metadata, grown one verified file at a time in the order of the
/// TUF 1.0.x client workflow (spec section 5): root, then timestamp, snapshot, targets, then
/// delegated targets as lookups need them. It does no I/O: the caller hands it bytes (from its
/// cache or the network) and it decides; every refusal is a ``TUFError`` naming the role and
/// the check. Like python-tuf's `TrustedMetadataSet`, make one per refresh, starting from the
/// trusted root (the cached newest root, or the one shipped with the app).
///
/// ```swift
/// // download(_:) throws -> [UInt8]? (nil: 404), cached(_:) -> [UInt8]? are the caller's I/O.
/// var trusted = try TrustedMetadataSet(trustedRoot: cached("root.json")!, now: Date())
/// for _ in 0..<TUFLimits.maxRootRotations {
///   guard let data = try download("\(trusted.root.version + 1).root.json") else { break }
///   try trusted.updateRoot(data)  // then persist data as the cached root.json
/// }
/// if let old = cached("timestamp.json") { _ = try? trusted.updateTimestamp(old, isCached: true) }
/// do {
///   try trusted.updateTimestamp(try download("timestamp.json")!)
/// } catch TUFError.versionUnchanged {
///   // nothing new: keep the cached files
/// }
/// try trusted.updateSnapshot(try download("snapshot.json")!)
/// try trusted.updateTargets(try download("targets.json")!)
/// let target = try trusted.target(path: "app/config.json") { role in try download("\(role).json") }
/// try target?.verify(downloadedBytes)
/// ```
///
/// Intermediate metadata (python-tuf's rule): a timestamp or snapshot that verifies but is
/// expired, or a snapshot whose version differs from the one timestamp names, is kept (so a
/// newer one can still be checked against it for rollback) while the update throws; the next
/// step refuses to build on it.
public struct TrustedMetadataSet: Sendable {
  /// The time expiry is judged against.
  public let now: Date
  /// The newest verified root.
  public private(set) var root: RootMetadata
  public private(set) var timestamp: TimestampMetadata?
  public private(set) var snapshot: SnapshotMetadata?
  /// The top-level targets metadata.
  public private(set) var targets: TargetsMetadata?
  /// Delegated targets metadata by (delegator, role), with the fingerprint of the delegator's
  /// metadata it was verified against: a role is trusted only as verified against one
  /// particular delegator, and only while that delegator's metadata is the same.
  private var delegated:
    [DelegationEdge: (delegatorFingerprint: [UInt8], metadata: TargetsMetadata)] =
      [:]
  /// The latest delegated metadata verified for each role name (for the by-name API).
  private var delegatedByName: [String: TargetsMetadata] = [:]
  /// True once a root update changed the timestamp or snapshot role's keys or threshold:
  /// cached timestamp and snapshot metadata must be deleted (spec 5.3.11); the set refuses them
  /// when offered with `isCached`.
  public private(set) var timestampOrSnapshotKeysRotated = false

  struct DelegationEdge: Hashable, Sendable {
    var delegator: String
    var role: String
  }

  /// Starts from `trustedRoot`, which must be signed by its own root threshold. An expired root
  /// is accepted here (a newer one may follow); expiry is checked at ``updateTimestamp(_:isCached:)``.
  /// - Throws: ``TUFError`` when the bytes are not root metadata or not self-signed.
  public init(trustedRoot: some Collection<UInt8>, now: Date) throws(TUFError) {
    let root = try RootMetadata.parse(trustedRoot)
    try root.verify(root.envelope, as: "root")
    self.root = root
    self.now = now
  }

  /// Verifies `data` as root version N+1 and makes it the trusted root: it must be signed by
  /// the threshold of the trusted root's root role AND by its own, and its version must be
  /// exactly N+1. An expired intermediate root is fine. Call it for N+1, N+2, ... until the
  /// repository has no next version (at most ``TUFLimits/maxRootRotations`` times), before
  /// any timestamp.
  @discardableResult
  public mutating func updateRoot(_ data: some Collection<UInt8>) throws(TUFError) -> RootMetadata {
    guard timestamp == nil else {
      throw .outOfOrder(role: "root", reason: "after timestamp.json")
    }
    let new = try RootMetadata.parse(data)
    try root.verify(new.envelope, as: "root")
    guard root.version < Int64.max, new.version == root.version + 1 else {
      throw .versionMismatch(
        role: "root", expected: root.version == .max ? .max : root.version + 1, got: new.version)
    }
    try new.verify(new.envelope, as: "root")
    for role in ["timestamp", "snapshot"] {
      if let old = root.roles[role], let now = new.roles[role], old.identity != now.identity {
        timestampOrSnapshotKeysRotated = true
      }
    }
    root = new
    return new
  }

  /// Verifies `data` as timestamp metadata signed by the root's timestamp keys. Refuses an
  /// expired final root, a version older than the trusted timestamp (an equal one throws
  /// ``TUFError/versionUnchanged(role:version:)``: keep what you have), and a snapshot version
  /// older than the trusted timestamp's. An expired timestamp is kept as intermediate and the
  /// call throws ``TUFError/expired(role:secondsAgo:)``.
  /// - Parameter isCached: the bytes are the caller's cached copy (dropped after a key rotation).
  @discardableResult
  public mutating func updateTimestamp(_ data: some Collection<UInt8>, isCached: Bool = false)
    throws(TUFError) -> TimestampMetadata
  {
    guard snapshot == nil else {
      throw .outOfOrder(role: "timestamp", reason: "after snapshot.json")
    }
    if root.envelope.isExpired(at: now) {
      throw .expired(role: "root", secondsAgo: now.timeIntervalSince(root.expires))
    }
    if isCached, timestampOrSnapshotKeysRotated {
      throw .droppedAfterKeyRotation(role: "timestamp")
    }
    let envelope = try MetadataEnvelope.parse(
      data, role: "timestamp", limit: TUFLimits.maxTimestampSize)
    let new = try TimestampMetadata(envelope: envelope)
    try root.verify(envelope, as: "timestamp")
    if let trusted = timestamp {
      if new.version < trusted.version {
        throw .versionRollback(role: "timestamp", offered: new.version, trusted: trusted.version)
      }
      if new.version == trusted.version {
        throw .versionUnchanged(role: "timestamp", version: new.version)
      }
      if new.snapshotMeta.version < trusted.snapshotMeta.version {
        throw .metaRollback(
          listing: "timestamp", file: "snapshot.json", offered: new.snapshotMeta.version,
          trusted: trusted.snapshotMeta.version)
      }
    }
    timestamp = new
    try checkFinalTimestamp()
    return new
  }

  private func checkFinalTimestamp() throws(TUFError) {
    guard let timestamp else {
      throw .outOfOrder(role: "snapshot", reason: "before timestamp.json")
    }
    if now >= timestamp.expires {
      throw .expired(role: "timestamp", secondsAgo: now.timeIntervalSince(timestamp.expires))
    }
  }

  /// Verifies `data` as snapshot metadata: its bytes must match the length and hashes timestamp
  /// pins (unless `isCached`: the caller's copy verified in an earlier session), it must be
  /// signed by the root's snapshot keys, and it must not drop or roll back any targets
  /// metadata file the trusted snapshot lists. Kept as intermediate, with a throw, when
  /// expired or when its version is not the one timestamp names.
  @discardableResult
  public mutating func updateSnapshot(_ data: some Collection<UInt8>, isCached: Bool = false)
    throws(TUFError) -> SnapshotMetadata
  {
    guard timestamp != nil else {
      throw .outOfOrder(role: "snapshot", reason: "before timestamp.json")
    }
    guard targets == nil else { throw .outOfOrder(role: "snapshot", reason: "after targets.json") }
    try checkFinalTimestamp()
    let pinned = timestamp!.snapshotMeta
    if isCached, timestampOrSnapshotKeysRotated {
      throw .droppedAfterKeyRotation(role: "snapshot")
    }
    if !isCached { try pinned.verify(data, role: "snapshot", pinnedBy: "timestamp") }
    let envelope = try MetadataEnvelope.parse(
      data, role: "snapshot", limit: max(TUFLimits.maxSnapshotSize, Int(pinned.length ?? 0)))
    let new = try SnapshotMetadata(envelope: envelope)
    try root.verify(envelope, as: "snapshot")
    if let trusted = snapshot {
      for (file, info) in trusted.meta.sorted(by: {
        $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
      }) {
        guard let offered = new.meta[file] else {
          throw .metaRemoved(listing: "snapshot", file: file)
        }
        if offered.version < info.version {
          throw .metaRollback(
            listing: "snapshot", file: file, offered: offered.version, trusted: info.version)
        }
      }
    }
    snapshot = new
    try checkFinalSnapshot(for: "snapshot")
    return new
  }

  private func checkFinalSnapshot(for role: String) throws(TUFError) {
    guard let snapshot, let timestamp else {
      throw .outOfOrder(role: role, reason: "before snapshot.json")
    }
    if now >= snapshot.expires {
      throw .expired(role: "snapshot", secondsAgo: now.timeIntervalSince(snapshot.expires))
    }
    if snapshot.version != timestamp.snapshotMeta.version {
      throw .versionMismatch(
        role: "snapshot", expected: timestamp.snapshotMeta.version, got: snapshot.version)
    }
  }

  /// Verifies `data` as the top-level targets metadata: signed by the root's targets keys, the
  /// version snapshot names, the length and hashes snapshot pins, not expired.
  @discardableResult
  public mutating func updateTargets(_ data: some Collection<UInt8>) throws(TUFError)
    -> TargetsMetadata
  {
    let new = try verifyDelegated(data, role: "targets", delegator: "root", delegatorTargets: nil)
    targets = new
    return new
  }

  /// Verifies `data` as the delegated targets role `role`, against the keys and threshold that
  /// `delegator` (a targets role already trusted, `targets` for the top level) gives it; the
  /// version snapshot names, the length and hashes snapshot pins, not expired. When
  /// `delegator` was itself reached through several delegators, the latest one verified is
  /// used; a ``TargetLookup`` always uses the one on its own path.
  @discardableResult
  public mutating func updateDelegatedTargets(
    _ data: some Collection<UInt8>, role: String, delegator: String
  ) throws(TUFError) -> TargetsMetadata {
    if role == "targets" { return try updateTargets(data) }
    guard let parent = delegator == "targets" ? targets : delegatedByName[delegator] else {
      throw .outOfOrder(role: role, reason: "before its delegator \(TUFError.file(delegator))")
    }
    return try verifyDelegated(data, role: role, delegator: delegator, delegatorTargets: parent)
  }

  /// The metadata of `role` as verified against `delegator`, if it was.
  public func delegatedTargets(role: String, delegator: String) -> TargetsMetadata? {
    if role == "targets" { return delegator == "root" ? targets : nil }
    return delegated[DelegationEdge(delegator: delegator, role: role)]?.metadata
  }

  /// The metadata of `role` if it was verified against exactly `delegatorTargets` (the
  /// delegator's metadata on a lookup's path).
  func delegatedTargets(role: String, delegator: String, delegatorTargets: TargetsMetadata)
    -> TargetsMetadata?
  {
    guard let entry = delegated[DelegationEdge(delegator: delegator, role: role)],
      entry.delegatorFingerprint == delegatorTargets.fingerprint
    else { return nil }
    return entry.metadata
  }

  /// Verifies and stores `role` against `delegatorTargets` (nil: root's targets role).
  mutating func verifyDelegated(
    _ data: some Collection<UInt8>, role: String, delegator: String,
    delegatorTargets: TargetsMetadata?
  ) throws(TUFError) -> TargetsMetadata {
    guard snapshot != nil else { throw .outOfOrder(role: role, reason: "before snapshot.json") }
    try checkFinalSnapshot(for: role)
    let keys: [String: TUFKey]
    let roleKeys: RoleKeys
    if let delegatorTargets {
      guard let delegations = delegatorTargets.delegations,
        let found = delegations.roleKeys(for: role)
      else { throw .notDelegated(role: role, delegator: delegator) }
      keys = delegations.keys
      roleKeys = found
    } else {
      guard let found = root.roles["targets"] else {
        throw .notDelegated(role: role, delegator: "root")
      }
      keys = root.keys
      roleKeys = found
    }
    guard let meta = snapshot!.meta[role + ".json"] else { throw .missingFromSnapshot(role: role) }
    try meta.verify(data, role: role, pinnedBy: "snapshot")
    let envelope = try MetadataEnvelope.parse(
      data, role: role, limit: max(TUFLimits.maxTargetsSize, Int(meta.length ?? 0)))
    let new = try TargetsMetadata(envelope: envelope, role: role)
    try envelope.verify(roleName: role, keys: keys, role: roleKeys)
    guard new.version == meta.version else {
      throw .versionMismatch(role: role, expected: meta.version, got: new.version)
    }
    if now >= new.expires {
      throw .expired(role: role, secondsAgo: now.timeIntervalSince(new.expires))
    }
    if let delegatorTargets {
      delegated[DelegationEdge(delegator: delegator, role: role)] = (
        delegatorTargets.fingerprint, new
      )
      delegatedByName[role] = new
    }
    return new
  }
}
