import Foundation

/// What an engine with a `tuf` block can say about the signed metadata its assets follow: whether
/// the last refresh verified, the trusted root's version, the earliest expiry among the trusted
/// top-level roles, or why the repository was refused. `EngineInfo.trust` is nil without `tuf`.
package struct TrustSummary: Sendable, Equatable, Codable {
  /// Whether the last refresh verified the repository's metadata (assets follow signed targets).
  package var signed: Bool
  /// The version of the trusted root (after rotations), once one was loaded.
  package var rootVersion: Int64?
  /// The earliest `expires` of the trusted root, timestamp, snapshot and targets metadata.
  package var earliestExpiry: Date?
  /// Why the last refresh refused the metadata, one sentence naming the role and the check;
  /// nil when it verified (or failed only to reach the repository).
  package var refusal: String?
  /// The `expires` of each trusted top-level role (`root`, `timestamp`, `snapshot`, `targets`);
  /// empty until metadata verified. Exported as a metric, one series per role.
  package var roleExpiries: [String: Date] = [:]
  /// The signed metadata in force while no refresh of this run has verified the repository's:
  /// what the engine's metadata folder held, verified again (signatures, pins, expiry) when a
  /// refresh could not check the repository; its targets are followed. Nil while `signed` (then
  /// ``rootVersion`` and ``earliestExpiry`` describe what is in force) or when none is.
  package var heldOver: HeldOver?
  /// Why the last refresh could not check the repository, one sentence naming the file and
  /// what happened (unreachable, an answer over its length limit, the metadata folder's disk):
  /// the metadata verified before stays in force meanwhile. Nil after a refresh that reached
  /// it, and when it was refused (``refusal``).
  package var repositoryFailure: String?

  /// Metadata in force that the engine verified again from its folder (``heldOver``).
  package struct HeldOver: Sendable, Equatable, Codable {
    /// The version of the folder's trusted root.
    package var rootVersion: Int64
    /// The earliest `expires` of its root, timestamp, snapshot and targets metadata.
    package var earliestExpiry: Date

    /// Creates the description of metadata in force.
    package init(rootVersion: Int64, earliestExpiry: Date) {
      self.rootVersion = rootVersion
      self.earliestExpiry = earliestExpiry
    }
  }

  /// The root version and earliest expiry of the metadata whose targets are in force: the last
  /// verified refresh's while ``signed``, else what the folder held (``heldOver``); nil when
  /// nothing verified is in force.
  package var inForce: (rootVersion: Int64?, earliestExpiry: Date?)? {
    if signed { return (rootVersion, earliestExpiry) }
    return heldOver.map { ($0.rootVersion, $0.earliestExpiry) }
  }

  /// Creates a summary.
  package init(
    signed: Bool, rootVersion: Int64? = nil, earliestExpiry: Date? = nil, refusal: String? = nil
  ) {
    self.signed = signed
    self.rootVersion = rootVersion
    self.earliestExpiry = earliestExpiry
    self.refusal = refusal
  }

  private enum CodingKeys: String, CodingKey {
    case signed, rootVersion, earliestExpiry, refusal, roleExpiries, heldOver, repositoryFailure
  }

  /// Decodes a summary; only `signed` is required.
  ///
  /// - Throws: `DecodingError` when `signed` is missing or a key has the wrong type.
  package init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      signed: try c.decode(Bool.self, forKey: .signed),
      rootVersion: try c.decodeIfPresent(Int64.self, forKey: .rootVersion),
      earliestExpiry: try c.decodeIfPresent(Date.self, forKey: .earliestExpiry),
      refusal: try c.decodeIfPresent(String.self, forKey: .refusal))
    roleExpiries = try c.decodeIfPresent([String: Date].self, forKey: .roleExpiries) ?? [:]
    heldOver = try c.decodeIfPresent(HeldOver.self, forKey: .heldOver)
    repositoryFailure = try c.decodeIfPresent(String.self, forKey: .repositoryFailure)
  }

  /// Encodes every key (absent values as `null`).
  ///
  /// - Throws: what the encoder throws.
  package func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(signed, forKey: .signed)
    try c.encode(rootVersion, forKey: .rootVersion)
    try c.encode(earliestExpiry, forKey: .earliestExpiry)
    try c.encode(refusal, forKey: .refusal)
    // Only once known: a summary without them reads as older versions wrote it.
    if !roleExpiries.isEmpty { try c.encode(roleExpiries, forKey: .roleExpiries) }
    try c.encodeIfPresent(heldOver, forKey: .heldOver)
    try c.encodeIfPresent(repositoryFailure, forKey: .repositoryFailure)
  }
}
