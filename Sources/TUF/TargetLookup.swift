/// One target lookup: the preorder depth-first walk of the delegation graph of spec 5.6.7
/// (python-tuf's `_preorder_depth_first_walk`), step by step so the caller does the I/O.
/// Each delegated role is verified against the delegator on THIS walk's path: a role already
/// trusted through another delegator, or through other metadata of the same delegator, is
/// verified again (the set keys trusted delegated metadata by delegator and role, and
/// remembers the delegator metadata's fingerprint).
///
/// Drive it with ``next(in:)``: `.needMetadata(role:delegator:)` asks for the role's bytes
/// (cache or network, `N.role.json` under consistent snapshots), which go to
/// ``supply(_:in:)``; `.found` and `.notFound` end it. Or use
/// ``TrustedMetadataSet/target(path:load:)``, which runs this loop with a closure.
///
/// Rules: roles are visited in the order their delegator lists them; a role already visited in
/// this walk is skipped; a matching terminating role ends the search after itself (and the
/// roles it delegates to); hash bins are terminating; at most ``TUFLimits/maxDelegations``
/// roles are visited (then the target is not found).
public struct TargetLookup: Sendable {
  /// What the walk needs or found.
  public enum Step: Sendable {
    /// The target, from the first role (in trust order) that lists it.
    case found(TargetFile, role: String)
    /// No role on the walk lists the path.
    case notFound
    /// Bytes of `role`'s metadata are needed, to be verified against `delegator`.
    case needMetadata(role: String, delegator: String)
  }

  public let path: String
  public let maxDelegations: Int

  private struct Pending: Sendable {
    var role: String
    var delegator: String
    /// The delegator's verified metadata; nil for the top-level targets (delegated by root).
    var delegatorTargets: TargetsMetadata?
  }

  private var stack: [Pending]
  private var visited = Set<String>()

  /// A lookup of `path` (a target path as metadata lists it: `dir/name`, no leading `/`).
  public init(path: String, maxDelegations: Int = TUFLimits.maxDelegations) {
    self.path = path
    self.maxDelegations = maxDelegations
    stack = [Pending(role: "targets", delegator: "root", delegatorTargets: nil)]
  }

  /// Advances the walk as far as the trusted set allows.
  /// - Throws: ``TUFError/outOfOrder(role:reason:)`` when top-level targets is not trusted yet.
  public mutating func next(in set: inout TrustedMetadataSet) throws(TUFError) -> Step {
    while visited.count <= maxDelegations, let top = stack.last {
      if visited.contains(top.role) {
        stack.removeLast()
        continue
      }
      let metadata: TargetsMetadata
      if top.delegatorTargets == nil {
        guard let targets = set.targets else {
          throw .outOfOrder(role: "targets", reason: "for a lookup before targets.json is trusted")
        }
        metadata = targets
      } else if let delegatorTargets = top.delegatorTargets,
        let verified = set.delegatedTargets(
          role: top.role, delegator: top.delegator, delegatorTargets: delegatorTargets)
      {
        metadata = verified
      } else {
        return .needMetadata(role: top.role, delegator: top.delegator)
      }
      stack.removeLast()
      if let target = metadata.targets[path] { return .found(target, role: top.role) }
      visited.insert(top.role)
      guard let delegations = metadata.delegations else { continue }
      var children: [Pending] = []
      for (name, terminating) in delegations.roles(for: path) {
        children.append(Pending(role: name, delegator: top.role, delegatorTargets: metadata))
        if terminating {
          stack.removeAll()
          break
        }
      }
      stack.append(contentsOf: children.reversed())
    }
    return .notFound
  }

  /// Verifies `data` as the metadata the last ``next(in:)`` asked for, against the delegator
  /// on this walk's path, and stores it in `set`.
  /// - Throws: ``TUFError`` when the walk asked for nothing, or the metadata is refused.
  public mutating func supply(_ data: some Collection<UInt8>, in set: inout TrustedMetadataSet)
    throws(TUFError)
  {
    guard let top = stack.last, let delegatorTargets = top.delegatorTargets else {
      throw .outOfOrder(
        role: stack.last?.role ?? "targets", reason: "when the lookup did not ask for it")
    }
    _ = try set.verifyDelegated(
      data, role: top.role, delegator: top.delegator, delegatorTargets: delegatorTargets)
  }
}

extension TrustedMetadataSet {
  /// Looks `path` up through the delegations (see ``TargetLookup``), calling `load` with a
  /// role name whenever a delegated role's metadata is needed (return nil when there is none).
  /// - Returns: the target, or nil when no role on the walk lists it.
  /// - Throws: ``TUFError`` when a role on the walk is refused, or `load` returns nil
  ///   (``TUFError/unavailable(role:)``); errors `load` throws pass through.
  public mutating func target(path: String, load: (String) throws -> [UInt8]?) throws -> TargetFile?
  {
    var lookup = TargetLookup(path: path)
    while true {
      switch try lookup.next(in: &self) {
      case .found(let target, _): return target
      case .notFound: return nil
      case .needMetadata(let role, _):
        guard let data = try load(role) else { throw TUFError.unavailable(role: role) }
        try lookup.supply(data, in: &self)
      }
    }
  }

  /// ``target(path:load:)`` with an async loader (a network fetch).
  public mutating func target(path: String, load: (String) async throws -> [UInt8]?) async throws
    -> TargetFile?
  {
    var lookup = TargetLookup(path: path)
    while true {
      switch try lookup.next(in: &self) {
      case .found(let target, _): return target
      case .notFound: return nil
      case .needMetadata(let role, _):
        guard let data = try await load(role) else { throw TUFError.unavailable(role: role) }
        try lookup.supply(data, in: &self)
      }
    }
  }
}
