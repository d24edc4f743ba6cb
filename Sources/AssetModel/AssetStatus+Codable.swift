import Foundation

// Stable JSON encodings of the status types, written out by hand so that renaming a property
// never changes the wire format (the control socket's protocol depends on these keys). Dates use
// the encoder's date strategy; the control socket uses ISO 8601 with fractional seconds. Decoding
// tolerates missing optional keys so an older peer can read a newer one.

extension TransferProgress: Codable {
  private enum CodingKeys: String, CodingKey {
    case receivedBytes, expectedBytes, bytesPerSecond, reusedBytes
  }

  /// Decodes `{"receivedBytes":…, "expectedBytes":…|null, "bytesPerSecond":…}` (and
  /// `"reusedBytes":…` during a delta update).
  ///
  /// The values come from another process: they are brought into what an engine can report
  /// (bytes from 0 to ``TransferProgress/maxBytes``, reused at most received, a finite rate
  /// from 0 to ``TransferProgress/maxBytesPerSecond``), so no arithmetic or formatting of a
  /// peer's numbers can overflow.
  ///
  /// - Throws: `DecodingError` when a required key is missing or has the wrong type.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let bytes = { (value: Int64) in min(max(0, value), Self.maxBytes) }
    let received = bytes(try c.decode(Int64.self, forKey: .receivedBytes))
    let rate = try c.decodeIfPresent(Double.self, forKey: .bytesPerSecond) ?? 0
    self.init(
      receivedBytes: received,
      expectedBytes: try c.decodeIfPresent(Int64.self, forKey: .expectedBytes).map(bytes),
      bytesPerSecond: rate.isFinite ? min(max(0, rate), Self.maxBytesPerSecond) : 0,
      reusedBytes: min(
        bytes(try c.decodeIfPresent(Int64.self, forKey: .reusedBytes) ?? 0), received))
  }

  /// Encodes the progress (`expectedBytes` is `null` when unknown).
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(receivedBytes, forKey: .receivedBytes)
    try c.encode(expectedBytes, forKey: .expectedBytes)
    try c.encode(bytesPerSecond.isFinite ? bytesPerSecond : 0, forKey: .bytesPerSecond)
    if reusedBytes > 0 { try c.encode(reusedBytes, forKey: .reusedBytes) }
  }
}

extension AssetActivity: Codable {
  private enum CodingKeys: String, CodingKey { case kind, progress }

  /// Decodes `{"kind":"idle"|"checking"|"validating"}` or
  /// `{"kind":"downloading","progress":{…}}`.
  ///
  /// - Throws: `DecodingError.dataCorrupted` for an unknown kind.
  package init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decode(String.self, forKey: .kind) {
    case "idle": self = .idle
    case "checking": self = .checking
    case "validating": self = .validating
    case "downloading":
      self = .downloading(try c.decode(TransferProgress.self, forKey: .progress))
    case let other:
      throw DecodingError.dataCorruptedError(
        forKey: .kind, in: c, debugDescription: "unknown activity \"\(other)\"")
    }
  }

  /// Encodes the activity as an object with a `kind`.
  package func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .idle: try c.encode("idle", forKey: .kind)
    case .checking: try c.encode("checking", forKey: .kind)
    case .validating: try c.encode("validating", forKey: .kind)
    case .downloading(let progress):
      try c.encode("downloading", forKey: .kind)
      try c.encode(progress, forKey: .progress)
    }
  }
}

extension AssetStatus: Codable {
  enum CodingKeys: String, CodingKey {
    case id, remote, format, essential, source, version, targetVersion, etag, lastModified
    case sha256, size, path, entryPath, fetchedAt, checkedAt, nextAttemptAt, lastError
    case consecutiveFailures, ttl, maxStale, isLive, canRollback, hasBundledCopy, activity
    case paused, history
    case mustRevalidate, staleWhileRevalidate, staleIfError, freshnessNote
    case rollout, probation, rejected, revalidation
  }

  /// Decodes a status; only `id` is required, every other key falls back to the neutral default.
  ///
  /// - Throws: `DecodingError` when `id` is missing or a present key has the wrong type.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(id: try c.decode(String.self, forKey: .id))
    for field in Self.fields { try field.decode(c, &self) }
  }

  /// Encodes every field; absent optionals are written as `null` (but `rollout`, `probation` and
  /// `rejected` only when set: engines and attached clients of before staged rollouts agree).
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .id)
    for field in Self.fields { try field.encode(&c, self, false) }
  }
}
