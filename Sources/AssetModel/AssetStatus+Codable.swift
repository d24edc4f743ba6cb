import Foundation

// Stable JSON encodings of the status types, written out by hand so that renaming a property
// never changes the wire format (the control socket's protocol depends on these keys). Dates use
// the encoder's date strategy; the control socket uses ISO 8601 with fractional seconds. Decoding
// tolerates missing optional keys so an older peer can read a newer one.

extension TransferProgress: Codable {
  private enum CodingKeys: String, CodingKey {
    case receivedBytes, expectedBytes, bytesPerSecond
  }

  /// Decodes `{"receivedBytes":…, "expectedBytes":…|null, "bytesPerSecond":…}`.
  ///
  /// - Throws: `DecodingError` when a required key is missing or has the wrong type.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      receivedBytes: try c.decode(Int64.self, forKey: .receivedBytes),
      expectedBytes: try c.decodeIfPresent(Int64.self, forKey: .expectedBytes),
      bytesPerSecond: try c.decodeIfPresent(Double.self, forKey: .bytesPerSecond) ?? 0)
  }

  /// Encodes the progress (`expectedBytes` is `null` when unknown).
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(receivedBytes, forKey: .receivedBytes)
    try c.encode(expectedBytes, forKey: .expectedBytes)
    try c.encode(bytesPerSecond.isFinite ? bytesPerSecond : 0, forKey: .bytesPerSecond)
  }
}

extension AssetActivity: Codable {
  private enum CodingKeys: String, CodingKey { case kind, progress }

  /// Decodes `{"kind":"idle"|"checking"|"validating"}` or
  /// `{"kind":"downloading","progress":{…}}`.
  ///
  /// - Throws: `DecodingError.dataCorrupted` for an unknown kind.
  public init(from decoder: any Decoder) throws {
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
  public func encode(to encoder: any Encoder) throws {
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
  private enum CodingKeys: String, CodingKey {
    case id, remote, format, essential, source, version, targetVersion, etag, lastModified
    case sha256, size, path, entryPath, fetchedAt, checkedAt, nextAttemptAt, lastError
    case consecutiveFailures, ttl, maxStale, isLive, canRollback, hasBundledCopy, activity
    case paused, history
    case mustRevalidate, staleWhileRevalidate, staleIfError, freshnessNote
    case rollout, probation, rejected
  }

  /// Decodes a status; only `id` is required, every other key falls back to the neutral default.
  ///
  /// - Throws: `DecodingError` when `id` is missing or a present key has the wrong type.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(id: try c.decode(String.self, forKey: .id))
    remote = try c.decodeIfPresent(String.self, forKey: .remote)
    format = try c.decodeIfPresent(String.self, forKey: .format) ?? format
    essential = try c.decodeIfPresent(Bool.self, forKey: .essential) ?? false
    source = try c.decodeIfPresent(AssetSource.self, forKey: .source) ?? .none
    version = try c.decodeIfPresent(String.self, forKey: .version)
    targetVersion = try c.decodeIfPresent(String.self, forKey: .targetVersion)
    etag = try c.decodeIfPresent(String.self, forKey: .etag)
    lastModified = try c.decodeIfPresent(String.self, forKey: .lastModified)
    sha256 = try c.decodeIfPresent(String.self, forKey: .sha256)
    size = try c.decodeIfPresent(Int64.self, forKey: .size)
    path = try c.decodeIfPresent(String.self, forKey: .path)
    entryPath = try c.decodeIfPresent(String.self, forKey: .entryPath)
    fetchedAt = try c.decodeIfPresent(Date.self, forKey: .fetchedAt)
    checkedAt = try c.decodeIfPresent(Date.self, forKey: .checkedAt)
    nextAttemptAt = try c.decodeIfPresent(Date.self, forKey: .nextAttemptAt)
    lastError = try c.decodeIfPresent(AssetErrorRecord.self, forKey: .lastError)
    consecutiveFailures = try c.decodeIfPresent(Int.self, forKey: .consecutiveFailures) ?? 0
    ttl = try c.decodeIfPresent(TimeInterval.self, forKey: .ttl) ?? ttl
    maxStale = try c.decodeIfPresent(TimeInterval.self, forKey: .maxStale) ?? maxStale
    isLive = try c.decodeIfPresent(Bool.self, forKey: .isLive) ?? false
    canRollback = try c.decodeIfPresent(Bool.self, forKey: .canRollback) ?? false
    hasBundledCopy = try c.decodeIfPresent(Bool.self, forKey: .hasBundledCopy) ?? false
    activity = try c.decodeIfPresent(AssetActivity.self, forKey: .activity) ?? .idle
    paused = try c.decodeIfPresent(Bool.self, forKey: .paused) ?? false
    history = try c.decodeIfPresent([RefreshRecord].self, forKey: .history) ?? []
    mustRevalidate = try c.decodeIfPresent(Bool.self, forKey: .mustRevalidate) ?? false
    staleWhileRevalidate = try c.decodeIfPresent(
      TimeInterval.self, forKey: .staleWhileRevalidate)
    staleIfError = try c.decodeIfPresent(TimeInterval.self, forKey: .staleIfError)
    freshnessNote = try c.decodeIfPresent(String.self, forKey: .freshnessNote)
    rollout = try c.decodeIfPresent(RolloutStage.self, forKey: .rollout)
    probation = try c.decodeIfPresent(AssetProbation.self, forKey: .probation)
    rejected = try c.decodeIfPresent(AssetRejection.self, forKey: .rejected)
  }

  /// Encodes every field; absent optionals are written as `null`.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .id)
    try c.encode(remote, forKey: .remote)
    try c.encode(format, forKey: .format)
    try c.encode(essential, forKey: .essential)
    try c.encode(source, forKey: .source)
    try c.encode(version, forKey: .version)
    try c.encode(targetVersion, forKey: .targetVersion)
    try c.encode(etag, forKey: .etag)
    try c.encode(lastModified, forKey: .lastModified)
    try c.encode(sha256, forKey: .sha256)
    try c.encode(size, forKey: .size)
    try c.encode(path, forKey: .path)
    try c.encode(entryPath, forKey: .entryPath)
    try c.encode(fetchedAt, forKey: .fetchedAt)
    try c.encode(checkedAt, forKey: .checkedAt)
    try c.encode(nextAttemptAt, forKey: .nextAttemptAt)
    try c.encode(lastError, forKey: .lastError)
    try c.encode(consecutiveFailures, forKey: .consecutiveFailures)
    try c.encode(ttl.isFinite ? ttl : 0, forKey: .ttl)
    try c.encode(maxStale.isFinite ? maxStale : 0, forKey: .maxStale)
    try c.encode(isLive, forKey: .isLive)
    try c.encode(canRollback, forKey: .canRollback)
    try c.encode(hasBundledCopy, forKey: .hasBundledCopy)
    try c.encode(activity, forKey: .activity)
    try c.encode(paused, forKey: .paused)
    try c.encode(history, forKey: .history)
    try c.encode(mustRevalidate, forKey: .mustRevalidate)
    try c.encode(staleWhileRevalidate, forKey: .staleWhileRevalidate)
    try c.encode(staleIfError, forKey: .staleIfError)
    try c.encode(freshnessNote, forKey: .freshnessNote)
    // Written only when set: engines and attached clients of before staged rollouts agree.
    try c.encodeIfPresent(rollout, forKey: .rollout)
    try c.encodeIfPresent(probation, forKey: .probation)
    try c.encodeIfPresent(rejected, forKey: .rejected)
  }
}
