import Foundation

/// Verified root metadata: the keys and roles of the four top-level roles.
public struct RootMetadata: Sendable {
  public let version: Int64
  public let expires: Date
  /// Whether the repository publishes `N.role.json` metadata and hash-prefixed target names.
  public let consistentSnapshot: Bool
  public let keys: [String: TUFKey]
  /// `root`, `timestamp`, `snapshot` and `targets`, exactly.
  public let roles: [String: RoleKeys]
  package let envelope: MetadataEnvelope

  static let topLevelRoles: Set<String> = ["root", "timestamp", "snapshot", "targets"]

  init(envelope: MetadataEnvelope) throws(TUFError) {
    guard envelope.type == "root" else { throw .wrongType(role: "root", got: envelope.type) }
    let signed = envelope.signed
    do throws(MetadataParseFailure) {
      keys = try RoleKeys.parseKeys(signed["keys"], context: "root")
      guard let rolesObject = signed["roles"]?.objectValue else {
        throw MetadataParseFailure("no roles object")
      }
      guard Set(rolesObject.keys) == Self.topLevelRoles else {
        throw MetadataParseFailure("roles are not exactly root, timestamp, snapshot and targets")
      }
      var roles: [String: RoleKeys] = [:]
      for (name, value) in rolesObject {
        roles[name] = try RoleKeys(json: value, context: "role \(name)")
      }
      self.roles = roles
      switch signed["consistent_snapshot"] {
      case nil, .null?: consistentSnapshot = false
      case .bool(let b)?: consistentSnapshot = b
      default: throw MetadataParseFailure("consistent_snapshot is not a boolean")
      }
    } catch {
      throw .malformed(role: "root", reason: error.reason)
    }
    version = envelope.version
    expires = envelope.expires
    self.envelope = envelope
  }

  /// Parses root metadata (no signature check: the caller decides what verifies it).
  static func parse(_ data: some Collection<UInt8>) throws(TUFError) -> RootMetadata {
    try RootMetadata(
      envelope: MetadataEnvelope.parse(data, role: "root", limit: TUFLimits.maxRootSize))
  }

  /// Verifies `envelope` as `role` (a top-level role) signed by this root's keys.
  func verify(_ envelope: MetadataEnvelope, as role: String) throws(TUFError) {
    guard let roleKeys = roles[role] else { throw .notDelegated(role: role, delegator: "root") }
    try envelope.verify(roleName: role, keys: keys, role: roleKeys)
  }
}
