import AssetModel
import Foundation

/// Why the verifier refused metadata or a target. Each case's `description` is one sentence that
/// names the role's file (`timestamp.json`, `project.json`) or the target path and the check
/// that failed. Names that come from metadata are shown through `TerminalText.sanitize`.
public enum TUFError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The bytes are longer than the limit for the role (``TUFLimits``).
  case tooLarge(role: String, size: Int, limit: Int)
  /// Not JSON, or not TUF metadata of the expected shape (the reason says what is missing).
  case malformed(role: String, reason: String)
  /// The `_type` is not the role expected at this step.
  case wrongType(role: String, got: String)
  /// `spec_version` is not 1.x.
  case unsupportedSpecVersion(role: String, version: String)
  /// Fewer distinct authorized keys signed than the role's threshold.
  case unsigned(role: String, valid: Int, threshold: Int)
  /// The version must be exactly `expected` (root N+1, or the version snapshot / timestamp pins).
  case versionMismatch(role: String, expected: Int64, got: Int64)
  /// The version is older than the one already trusted.
  case versionRollback(role: String, offered: Int64, trusted: Int64)
  /// The timestamp's version equals the trusted one: nothing changed (not an attack; the caller
  /// keeps what it has).
  case versionUnchanged(role: String, version: Int64)
  /// A meta entry names a version older than the trusted metadata's entry for the same file
  /// (`listing` is the role whose metadata names it: timestamp for snapshot, snapshot for targets).
  case metaRollback(listing: String, file: String, offered: Int64, trusted: Int64)
  /// A new snapshot drops a targets metadata file that the trusted snapshot lists.
  case metaRemoved(listing: String, file: String)
  /// The metadata expired before `now`.
  case expired(role: String, secondsAgo: TimeInterval)
  /// The bytes do not match the hash pinned by `pinnedBy`.
  case hashMismatch(role: String, pinnedBy: String, algorithm: String)
  /// The bytes' length is not the length pinned by `pinnedBy`.
  case lengthMismatch(role: String, pinnedBy: String, expected: Int64, got: Int)
  /// A hash algorithm this verifier does not compute (it supports sha256, sha384, sha512).
  case unsupportedHashAlgorithm(role: String, pinnedBy: String, algorithm: String)
  /// Snapshot has no entry for the role's metadata file.
  case missingFromSnapshot(role: String)
  /// The delegator does not delegate the role.
  case notDelegated(role: String, delegator: String)
  /// The caller loaded metadata out of the spec's order (a programming error of the caller).
  case outOfOrder(role: String, reason: String)
  /// Cached timestamp or snapshot metadata offered after root rotated the timestamp or snapshot
  /// keys: dropped (spec 5.3.11, fast-forward attack recovery); the caller deletes its copy.
  case droppedAfterKeyRotation(role: String)
  /// The caller's loader had no bytes for a delegated role the lookup needs.
  case unavailable(role: String)
  /// A target file's length differs from its metadata.
  case targetLengthMismatch(path: String, expected: Int64, got: Int)
  /// A target file's hash differs from its metadata.
  case targetHashMismatch(path: String, algorithm: String)
  /// A target's metadata names no hash this verifier computes, or an unknown one.
  case targetUnsupportedHash(path: String, algorithm: String)

  /// The role's metadata file name (`project` → `project.json`), sanitized for display.
  static func file(_ role: String) -> String {
    TerminalText.sanitize(role, maxLength: 80) + ".json"
  }

  static func shown(_ text: String) -> String { TerminalText.sanitize(text, maxLength: 200) }

  public var description: String {
    switch self {
    case .tooLarge(let role, let size, let limit):
      return "\(Self.file(role)) is \(size) bytes, more than the \(limit) allowed."
    case .malformed(let role, let reason):
      return "\(Self.file(role)) is not valid TUF metadata: \(Self.shown(reason))."
    case .wrongType(let role, let got):
      return "\(Self.file(role)) was expected, got metadata of type \"\(Self.shown(got))\"."
    case .unsupportedSpecVersion(let role, let version):
      return "\(Self.file(role)) has spec_version \"\(Self.shown(version))\", not 1.x."
    case .unsigned(let role, let valid, let threshold):
      let noun = threshold == 1 ? "signature" : "signatures"
      return "\(Self.file(role)) has \(valid) of the \(threshold) \(noun) its role requires."
    case .versionMismatch(let role, let expected, let got):
      return "\(Self.file(role)) version \(expected) was expected, got \(got)."
    case .versionRollback(let role, let offered, let trusted):
      return "\(Self.file(role)) version \(offered) is older than the trusted \(trusted)."
    case .versionUnchanged(let role, let version):
      return "\(Self.file(role)) version \(version) is the one already trusted (no change)."
    case .metaRollback(let listing, let file, let offered, let trusted):
      return
        "\(Self.file(listing)) names \(Self.shown(file)) version \(offered), older than the trusted \(trusted)."
    case .metaRemoved(let listing, let file):
      return
        "\(Self.file(listing)) drops \(Self.shown(file)), which the trusted \(Self.file(listing)) lists."
    case .expired(let role, let secondsAgo):
      return "\(Self.file(role)) expired \(DurationText.format(secondsAgo)) ago."
    case .hashMismatch(let role, let pinnedBy, let algorithm):
      return
        "\(Self.file(role)) does not match the \(Self.shown(algorithm)) hash pinned by \(Self.file(pinnedBy))."
    case .lengthMismatch(let role, let pinnedBy, let expected, let got):
      return
        "\(Self.file(role)) is \(got) bytes, not the \(expected) pinned by \(Self.file(pinnedBy))."
    case .unsupportedHashAlgorithm(let role, let pinnedBy, let algorithm):
      return
        "\(Self.file(role)) is pinned by \(Self.file(pinnedBy)) with the unsupported hash \"\(Self.shown(algorithm))\"."
    case .missingFromSnapshot(let role):
      return "\(Self.file(role)) has no entry in snapshot.json."
    case .notDelegated(let role, let delegator):
      return "\(Self.file(role)) is not a role that \(Self.file(delegator)) delegates."
    case .outOfOrder(let role, let reason):
      return "\(Self.file(role)) cannot be loaded \(reason)."
    case .droppedAfterKeyRotation(let role):
      return
        "\(Self.file(role)) from the cache was dropped because root rotated the timestamp or snapshot keys."
    case .unavailable(let role):
      return "\(Self.file(role)) could not be loaded."
    case .targetLengthMismatch(let path, let expected, let got):
      return "Target \(Self.shown(path)) is \(got) bytes, not the \(expected) its metadata says."
    case .targetHashMismatch(let path, let algorithm):
      return
        "Target \(Self.shown(path)) does not match the \(Self.shown(algorithm)) hash its metadata says."
    case .targetUnsupportedHash(let path, let algorithm):
      return
        "Target \(Self.shown(path)) has the unsupported hash \"\(Self.shown(algorithm))\" in its metadata."
    }
  }

  /// The check that refused, as one of a few fixed words (a metric label, so bounded):
  /// `too_large`, `malformed`, `signatures`, `version`, `rollback`, `expired`, `pinned_hash`,
  /// `not_listed`, `key_rotation`, `unavailable` or `target_bytes`.
  public var reason: String {
    switch self {
    case .tooLarge: return "too_large"
    case .malformed, .wrongType, .unsupportedSpecVersion, .outOfOrder: return "malformed"
    case .unsigned: return "signatures"
    case .versionMismatch: return "version"
    case .versionRollback, .versionUnchanged, .metaRollback, .metaRemoved: return "rollback"
    case .expired: return "expired"
    case .hashMismatch, .lengthMismatch, .unsupportedHashAlgorithm: return "pinned_hash"
    case .missingFromSnapshot, .notDelegated: return "not_listed"
    case .droppedAfterKeyRotation: return "key_rotation"
    case .unavailable: return "unavailable"
    case .targetLengthMismatch, .targetHashMismatch, .targetUnsupportedHash: return "target_bytes"
    }
  }

  /// The role the refusal is about (nil for target file checks).
  public var role: String? {
    switch self {
    case .tooLarge(let role, _, _), .malformed(let role, _), .wrongType(let role, _),
      .unsupportedSpecVersion(let role, _), .unsigned(let role, _, _),
      .versionMismatch(let role, _, _), .versionRollback(let role, _, _),
      .versionUnchanged(let role, _), .expired(let role, _), .hashMismatch(let role, _, _),
      .lengthMismatch(let role, _, _, _), .unsupportedHashAlgorithm(let role, _, _),
      .missingFromSnapshot(let role), .notDelegated(let role, _), .outOfOrder(let role, _),
      .droppedAfterKeyRotation(let role), .unavailable(let role):
      return role
    case .metaRollback(let listing, _, _, _), .metaRemoved(let listing, _): return listing
    case .targetLengthMismatch, .targetHashMismatch, .targetUnsupportedHash: return nil
    }
  }
}
