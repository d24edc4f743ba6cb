import AssetJSON
import Foundation

/// The publisher's side of `assetwatch publish guard`: read a staged target back, sign a step
/// or a halt with its evidence, and check that nothing expires before the planned rollout ends.
extension Repository {
  /// Target `path` as the guard reads it; nil when not listed or without a SHA-256.
  package func guardedTarget(_ path: String) -> GuardedTarget? {
    guard let entry = target(path), let sha = entry["hashes"]?["sha256"]?.stringValue else {
      return nil
    }
    let custom = entry["custom"]
    let rollout = custom?["rollout"]
    let percent = rollout?.objectValue == nil ? nil : rollout?["percent"]?.integerValue
    return GuardedTarget(
      path: path, sha256: sha.lowercased(), version: custom?["version"]?.stringValue,
      percent: percent.map { Int(clamping: $0) },
      fromVersion: rollout?["from"]?["version"]?.stringValue,
      critical: custom?["critical"]?.boolValue == true,
      evidence: GuardEvidence(json: rollout?["guard"]))
  }

  /// Sets target `path`'s staged percent to `percent` (0 halts; 100 ends the staging: the
  /// engine takes a rollout at 100 % as not staged) and its evidence to `evidence`, keeping the
  /// bytes, version and `from`; then signs targets, snapshot and timestamp anew.
  ///
  /// - Throws: ``PublishError`` when the target is not listed, not staged, or lists other bytes
  ///   than the evidence is of, or a key is missing.
  package mutating func signGuardStep(
    path: String, percent: Int, evidence: GuardEvidence, ring: KeyRing, expiry: ExpiryPolicy,
    now: Date, into publication: inout Publication
  ) throws(PublishError) {
    guard (0...100).contains(percent) else {
      throw PublishError("a guarded step is a percent from 0 to 100, not \(percent)")
    }
    guard var entry = target(path)?.objectValue else { throw PublishError("no target \(path)") }
    guard entry["hashes"]?["sha256"]?.stringValue?.lowercased() == evidence.sha256 else {
      throw PublishError("target \(path) lists other bytes than the guard judged")
    }
    var custom = entry["custom"]?.objectValue ?? [:]
    guard var spec = custom["rollout"]?.objectValue else {
      throw PublishError("target \(path) is not staged (publish update --rollout P first)")
    }
    spec["percent"] = .integer(Int64(percent))
    spec["guard"] = evidence.json
    custom["rollout"] = .object(spec)
    entry["custom"] = .object(custom)
    var list = targets.signed["targets"]?.objectValue ?? [:]
    list[path] = .object(entry)
    targets.signed["targets"] = .object(list)
    try publish(from: "targets", ring: ring, expiry: expiry, now: now, into: &publication)
  }

  /// Why the guard must not start a rollout planned to end by `plannedEnd` with at most
  /// `longestGap` between two of its signings, or nil: root (which the guard cannot sign)
  /// expires before the end, or a role it signs at each step (targets, which signs `from`,
  /// snapshot, timestamp) would lapse between two steps.
  package func guardExpiryProblem(
    now: Date, plannedEnd: Date, longestGap: TimeInterval, expiry: ExpiryPolicy
  ) -> String? {
    if let rootExpiry = root.expires, rootExpiry < plannedEnd {
      return "root version \(root.version) expires at \(TUFTime.format(rootExpiry)), before the "
        + "planned end of the rollout (\(TUFTime.format(plannedEnd))): renew it with "
        + "publish rotate-root first"
    }
    for role in ["targets", "snapshot", "timestamp"] {
      let lifetime = expiry.expiry(of: role, now: now).timeIntervalSince(now)
      if lifetime < longestGap {
        let what = role == "targets" ? "targets (which signs the rollout's from)" : role
        return "\(what) signed at a step lives \(Self.durationText(lifetime)), less than the "
          + "longest wait between two steps (soak + hold deadline, "
          + "\(Self.durationText(longestGap))): the fleet would refuse it mid-step; "
          + "give --expires \(role)=... longer"
      }
    }
    if let targetsExpiry = targets.expires, targetsExpiry < now.addingTimeInterval(longestGap) {
      return "the signed targets (which sign the rollout's from) expire at "
        + "\(TUFTime.format(targetsExpiry)), before the first step can be judged: "
        + "sign them anew (publish sign) first"
    }
    return nil
  }

  /// `90d`, `12h`, `30m`, `45s` (up to the whole second: an expiry is kept in whole seconds).
  static func durationText(_ seconds: TimeInterval) -> String {
    let s = Int(max(0, seconds).rounded(.up))
    if s % 86_400 == 0 && s > 0 { return "\(s / 86_400)d" }
    if s % 3600 == 0 && s > 0 { return "\(s / 3600)h" }
    if s % 60 == 0 && s > 0 { return "\(s / 60)m" }
    return "\(s)s"
  }
}

extension Repository {
  /// Throws unless `ring` holds the threshold of keys for targets, snapshot and timestamp: what
  /// every guarded step signs (checked before the guard starts, so it never judges a step it
  /// could not sign).
  package func checkSigningKeys(_ ring: KeyRing) throws(PublishError) {
    for role in ["targets", "snapshot", "timestamp"] {
      _ = try Repository.signers(for: role, in: root.signed, ring: ring)
    }
  }
}
