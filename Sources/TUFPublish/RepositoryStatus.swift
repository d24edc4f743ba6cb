import Foundation

/// What `publish status` reports: each top-level role's version, expiry, keys and threshold,
/// whether it has expired or expires soon, and the targets listed.
package struct RepositoryStatus: Sendable, Encodable, Equatable {
  package struct Role: Sendable, Encodable, Equatable {
    package var role: String
    package var version: Int64
    package var expires: String
    package var threshold: Int
    package var keyIDs: [String]
    package var expired: Bool
    package var expiresSoon: Bool
  }

  package struct Target: Sendable, Encodable, Equatable {
    package var path: String
    package var length: Int64?
    package var sha256: String?
    package var version: String?
    package var rolloutPercent: Int64?
  }

  package var consistentSnapshot: Bool
  package var roles: [Role]
  /// The roles that have expired or expire soon, most urgent first.
  package var expiringSoon: [String]
  package var targets: [Target]

  /// "Soon" per role: a quarter of its default lifetime (timestamp 6 h, snapshot 42 h,
  /// targets 22.5 days, root 91 days): time enough to renew from cron or by hand.
  package static func soonWindow(_ role: String) -> TimeInterval {
    (ExpiryPolicy.defaults[role] ?? ExpiryPolicy.defaults["targets"]!) / 4
  }

  package init(_ repository: Repository, now: Date) {
    consistentSnapshot = repository.consistentSnapshot
    var roles: [Role] = []
    for name in Repository.topLevelRoles {
      let metadata: SignedMetadata =
        switch name {
        case "root": repository.root
        case "targets": repository.targets
        case "snapshot": repository.snapshot
        default: repository.timestamp
        }
      let expires = metadata.expires ?? .distantPast
      let keys = repository.roleKeys(name)
      roles.append(
        Role(
          role: name, version: metadata.version, expires: TUFTime.format(expires),
          threshold: keys.threshold, keyIDs: keys.keyIDs, expired: now >= expires,
          expiresSoon: expires.timeIntervalSince(now) < Self.soonWindow(name)))
    }
    self.roles = roles
    expiringSoon = roles.filter(\.expiresSoon).sorted { $0.expires < $1.expires }.map(\.role)
    targets = repository.targetPaths.map { path in
      let entry = repository.target(path)
      return Target(
        path: path, length: entry?["length"]?.integerValue,
        sha256: entry?["hashes"]?["sha256"]?.stringValue,
        version: entry?["custom"]?["version"]?.stringValue,
        rolloutPercent: entry?["custom"]?["rollout"]?["percent"]?.integerValue)
    }
  }

  /// The report as lines of text.
  package func text(now: Date) -> [String] {
    var lines = ["role       version  expires               threshold  keys"]
    for r in roles {
      let expiry = TUFTime.parse(r.expires).map { $0.timeIntervalSince(now) } ?? 0
      let note =
        r.expired ? "  EXPIRED" : r.expiresSoon ? "  expires soon (in \(Self.span(expiry)))" : ""
      lines.append(
        r.role.padding(toLength: 11, withPad: " ", startingAt: 0)
          + String(r.version).padding(toLength: 9, withPad: " ", startingAt: 0)
          + r.expires.padding(toLength: 22, withPad: " ", startingAt: 0)
          + "\(r.threshold) of \(r.keyIDs.count)".padding(toLength: 11, withPad: " ", startingAt: 0)
          + r.keyIDs.map { String($0.prefix(8)) }.joined(separator: " ") + note)
    }
    lines.append("targets: \(targets.count)")
    for t in targets {
      var line = "  \(t.path)  \(t.length.map { "\($0) bytes" } ?? "?")"
      if let v = t.version { line += "  version \(v)" }
      if let p = t.rolloutPercent { line += "  rollout \(p) %" }
      lines.append(line)
    }
    if expiringSoon.isEmpty {
      lines.append("nothing expires soon")
    } else {
      lines.append("renew soon: " + expiringSoon.joined(separator: ", "))
    }
    return lines
  }

  static func span(_ seconds: TimeInterval) -> String {
    let s = Int(max(0, seconds))
    if s >= 86_400 { return "\(s / 86_400)d" }
    if s >= 3600 { return "\(s / 3600)h" }
    return "\(s / 60)m"
  }
}
