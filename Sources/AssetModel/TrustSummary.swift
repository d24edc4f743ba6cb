import Foundation

/// What an engine with a `tuf` block can say about the signed metadata its assets follow: whether
/// the last refresh verified, the trusted root's version, the earliest expiry among the trusted
/// top-level roles, or why the repository was refused. `EngineInfo.trust` is nil without `tuf`.
public struct TrustSummary: Sendable, Equatable, Codable {
  /// Whether the last refresh verified the repository's metadata (assets follow signed targets).
  public var signed: Bool
  /// The version of the trusted root (after rotations), once one was loaded.
  public var rootVersion: Int64?
  /// The earliest `expires` of the trusted root, timestamp, snapshot and targets metadata.
  public var earliestExpiry: Date?
  /// Why the last refresh refused the metadata, one sentence naming the role and the check;
  /// nil when it verified (or failed only to reach the repository).
  public var refusal: String?
  /// The `expires` of each trusted top-level role (`root`, `timestamp`, `snapshot`, `targets`);
  /// empty until metadata verified. Exported as a metric, one series per role.
  public var roleExpiries: [String: Date] = [:]

  /// Creates a summary.
  public init(
    signed: Bool, rootVersion: Int64? = nil, earliestExpiry: Date? = nil, refusal: String? = nil
  ) {
    self.signed = signed
    self.rootVersion = rootVersion
    self.earliestExpiry = earliestExpiry
    self.refusal = refusal
  }

  private enum CodingKeys: String, CodingKey {
    case signed, rootVersion, earliestExpiry, refusal, roleExpiries
  }

  /// Decodes a summary; only `signed` is required.
  ///
  /// - Throws: `DecodingError` when `signed` is missing or a key has the wrong type.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      signed: try c.decode(Bool.self, forKey: .signed),
      rootVersion: try c.decodeIfPresent(Int64.self, forKey: .rootVersion),
      earliestExpiry: try c.decodeIfPresent(Date.self, forKey: .earliestExpiry),
      refusal: try c.decodeIfPresent(String.self, forKey: .refusal))
    roleExpiries = try c.decodeIfPresent([String: Date].self, forKey: .roleExpiries) ?? [:]
  }

  /// Encodes every key (absent values as `null`).
  ///
  /// - Throws: what the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(signed, forKey: .signed)
    try c.encode(rootVersion, forKey: .rootVersion)
    try c.encode(earliestExpiry, forKey: .earliestExpiry)
    try c.encode(refusal, forKey: .refusal)
    // Only once known: a summary without them reads as older versions wrote it.
    if !roleExpiries.isEmpty { try c.encode(roleExpiries, forKey: .roleExpiries) }
  }
}
