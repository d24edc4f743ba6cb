import AssetJSON
import Crypto
import Foundation

/// Verified targets metadata (top-level or delegated): the targets it lists and whom it
/// delegates to.
public struct TargetsMetadata: Sendable {
  public let version: Int64
  public let expires: Date
  /// Targets by path.
  public let targets: [String: TargetFile]
  public let delegations: Delegations?
  /// SHA-256 of the canonical `signed` bytes: which metadata exactly a delegation was
  /// verified against.
  package let fingerprint: [UInt8]

  init(envelope: MetadataEnvelope, role: String) throws(TUFError) {
    guard envelope.type == "targets" else { throw .wrongType(role: role, got: envelope.type) }
    do throws(MetadataParseFailure) {
      guard let object = envelope.signed["targets"]?.objectValue else {
        throw MetadataParseFailure("no targets object")
      }
      var targets: [String: TargetFile] = [:]
      targets.reserveCapacity(object.count)
      for (path, value) in object { targets[path] = try TargetFile(path: path, json: value) }
      self.targets = targets
      delegations = try envelope.signed["delegations"].map(Delegations.init(json:))
    } catch {
      throw .malformed(role: role, reason: error.reason)
    }
    version = envelope.version
    expires = envelope.expires
    fingerprint = Array(SHA256.hash(data: envelope.canonicalSigned))
  }
}

/// A targets role's `delegations`: keys, and either an ordered list of roles or succinct
/// hash bins.
public struct Delegations: Sendable {
  public let keys: [String: TUFKey]
  /// In metadata order (the order of trust).
  public let roles: [DelegatedRole]?
  public let succinctRoles: SuccinctRoles?
  private let roleIndex: [String: Int]

  init(json: JSONValue) throws(MetadataParseFailure) {
    keys = try RoleKeys.parseKeys(json["keys"], context: "delegations")
    let rolesJSON = json["roles"]
    let succinctJSON = json["succinct_roles"]
    switch (rolesJSON, succinctJSON) {
    case (let r?, nil):
      guard let array = r.arrayValue else {
        throw MetadataParseFailure("delegations roles is not a list")
      }
      var roles: [DelegatedRole] = []
      var index: [String: Int] = [:]
      for item in array {
        let role = try DelegatedRole(json: item)
        guard index.updateValue(roles.count, forKey: role.name) == nil else {
          throw MetadataParseFailure("delegations name a role twice")
        }
        guard !RootMetadata.topLevelRoles.contains(role.name) else {
          throw MetadataParseFailure("delegations name a top-level role")
        }
        roles.append(role)
      }
      self.roles = roles
      roleIndex = index
      succinctRoles = nil
    case (nil, let s?):
      roles = nil
      roleIndex = [:]
      succinctRoles = try SuccinctRoles(json: s)
    default:
      throw MetadataParseFailure("delegations need exactly one of roles and succinct_roles")
    }
  }

  /// The keys and threshold for `role`, nil when it is not delegated here.
  public func roleKeys(for role: String) -> RoleKeys? {
    if let roles, let i = roleIndex[role] { return roles[i].keys }
    if let succinctRoles, succinctRoles.isBin(role) { return succinctRoles.keys }
    return nil
  }

  /// The roles responsible for `path`, in order, each with its terminating flag
  /// (python-tuf's `get_roles_for_target`; hash bins are terminating).
  public func roles(for path: String) -> [(name: String, terminating: Bool)] {
    if let roles {
      return roles.filter { $0.isDelegated(path: path) }.map { ($0.name, $0.terminating) }
    }
    if let succinctRoles { return [(succinctRoles.roleName(for: path), true)] }
    return []
  }
}
