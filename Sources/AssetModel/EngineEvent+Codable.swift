import Foundation

// Stable JSON encodings of the engine's events and commands, written out by hand: the control
// socket's protocol (version 1) is defined by these keys and words.

extension EngineInfo: Codable {
  private enum CodingKeys: String, CodingKey {
    case appVersion, configPath, manifestVersion, autoRefreshPaused, refreshEvery
    case cacheReadOnly, manifestCheckedAt, manifestError, assetsLoading, pausedAt, trust
    case instance, cache
  }

  /// Decodes engine info; only `appVersion` is required.
  ///
  /// - Throws: `DecodingError` when `appVersion` is missing or a key has the wrong type.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      appVersion: try c.decode(String.self, forKey: .appVersion),
      configPath: try c.decodeIfPresent(String.self, forKey: .configPath),
      manifestVersion: try c.decodeIfPresent(String.self, forKey: .manifestVersion),
      autoRefreshPaused: try c.decodeIfPresent(Bool.self, forKey: .autoRefreshPaused) ?? false,
      refreshEvery: try c.decodeIfPresent(TimeInterval.self, forKey: .refreshEvery))
    cacheReadOnly = try c.decodeIfPresent(String.self, forKey: .cacheReadOnly)
    manifestCheckedAt = try c.decodeIfPresent(Date.self, forKey: .manifestCheckedAt)
    manifestError = try c.decodeIfPresent(String.self, forKey: .manifestError)
    assetsLoading = try c.decodeIfPresent(Int.self, forKey: .assetsLoading)
    pausedAt = try c.decodeIfPresent(Date.self, forKey: .pausedAt)
    trust = try c.decodeIfPresent(TrustSummary.self, forKey: .trust)
    instance = try c.decodeIfPresent(String.self, forKey: .instance)
    cache = try c.decodeIfPresent(CacheUsage.self, forKey: .cache)
  }

  /// Encodes every field; absent optionals are written as `null` (but `assetsLoading` and `trust`
  /// only when set: output without them stays as older versions wrote it).
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(appVersion, forKey: .appVersion)
    try c.encode(configPath, forKey: .configPath)
    try c.encode(manifestVersion, forKey: .manifestVersion)
    try c.encode(autoRefreshPaused, forKey: .autoRefreshPaused)
    try c.encode(refreshEvery, forKey: .refreshEvery)
    try c.encode(cacheReadOnly, forKey: .cacheReadOnly)
    try c.encode(manifestCheckedAt, forKey: .manifestCheckedAt)
    try c.encode(manifestError, forKey: .manifestError)
    // Only while loading: output written after the start stays as it was.
    try c.encodeIfPresent(assetsLoading, forKey: .assetsLoading)
    // Only while paused.
    try c.encodeIfPresent(pausedAt, forKey: .pausedAt)
    try c.encodeIfPresent(trust, forKey: .trust)
    try c.encodeIfPresent(instance, forKey: .instance)
    try c.encodeIfPresent(cache, forKey: .cache)
  }
}

extension EngineSnapshot: Codable {
  private enum CodingKeys: String, CodingKey { case engine, assets, at }

  /// Decodes `{"engine":{…}, "assets":[…], "at":DATE}`.
  ///
  /// - Throws: `DecodingError` when a key is missing or malformed.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      info: try c.decode(EngineInfo.self, forKey: .engine),
      assets: try c.decode([AssetStatus].self, forKey: .assets),
      at: try c.decode(Date.self, forKey: .at))
  }

  /// Encodes the snapshot.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(info, forKey: .engine)
    try c.encode(assets, forKey: .assets)
    try c.encode(at, forKey: .at)
  }
}

extension EngineLogEntry: Codable {
  private enum CodingKeys: String, CodingKey { case at, asset, level, message }

  /// Decodes `{"at":DATE, "asset":ID|null, "level":"info"|"warning"|"error", "message":…}`.
  ///
  /// - Throws: `DecodingError` when a required key is missing or malformed.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      at: try c.decode(Date.self, forKey: .at),
      assetID: try c.decodeIfPresent(String.self, forKey: .asset),
      level: try c.decode(Level.self, forKey: .level),
      message: try c.decode(String.self, forKey: .message))
  }

  /// Encodes the entry.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(at, forKey: .at)
    try c.encode(assetID, forKey: .asset)
    try c.encode(level, forKey: .level)
    try c.encode(message, forKey: .message)
  }
}

extension EngineEvent: Codable {
  private enum CodingKeys: String, CodingKey {
    case type, snapshot, asset, progress, engine, entry
  }

  /// The `type` word of each event on the wire.
  public var typeWord: String {
    switch self {
    case .snapshot: "snapshot"
    case .assetChanged: "asset"
    case .progress: "progress"
    case .engineChanged: "engine"
    case .log: "log"
    }
  }

  /// The `type` words that name an event (as opposed to a hello, a reply or an error).
  public static let typeWords: Set<String> = ["snapshot", "asset", "progress", "engine", "log"]

  /// Decodes one event: `{"type":"snapshot","snapshot":{…}}`, `{"type":"asset","asset":{…}}`,
  /// `{"type":"progress","asset":ID,"progress":{…}}`, `{"type":"engine","engine":{…}}` or
  /// `{"type":"log","entry":{…}}`.
  ///
  /// - Throws: `DecodingError` for an unknown type or a malformed payload.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decode(String.self, forKey: .type) {
    case "snapshot": self = .snapshot(try c.decode(EngineSnapshot.self, forKey: .snapshot))
    case "asset": self = .assetChanged(try c.decode(AssetStatus.self, forKey: .asset))
    case "progress":
      self = .progress(
        id: try c.decode(String.self, forKey: .asset),
        try c.decode(TransferProgress.self, forKey: .progress))
    case "engine": self = .engineChanged(try c.decode(EngineInfo.self, forKey: .engine))
    case "log": self = .log(try c.decode(EngineLogEntry.self, forKey: .entry))
    case let other:
      throw DecodingError.dataCorruptedError(
        forKey: .type, in: c, debugDescription: "unknown event type \"\(other)\"")
    }
  }

  /// Encodes the event as one object with a `type`.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(typeWord, forKey: .type)
    switch self {
    case .snapshot(let snapshot): try c.encode(snapshot, forKey: .snapshot)
    case .assetChanged(let status): try c.encode(status, forKey: .asset)
    case .progress(let id, let progress):
      try c.encode(id, forKey: .asset)
      try c.encode(progress, forKey: .progress)
    case .engineChanged(let info): try c.encode(info, forKey: .engine)
    case .log(let entry): try c.encode(entry, forKey: .entry)
    }
  }
}

extension AssetCommand: Codable {
  private enum CodingKeys: String, CodingKey { case command, asset, reason }

  /// The `command` word of each command on the wire.
  package var commandWord: String {
    switch self {
    case .refresh: "refresh"
    case .refreshAll: "refreshAll"
    case .resetToBundled: "reset"
    case .dropCache: "drop"
    case .rollback: "rollback"
    case .pauseAutoRefresh: "pause"
    case .resumeAutoRefresh: "resume"
    case .verify: "verify"
    case .verifyAll: "verifyAll"
    case .confirm: "confirm"
    case .reject: "reject"
    }
  }

  /// The asset a command names, if it names one.
  package var assetID: String? {
    switch self {
    case .refresh(let id), .resetToBundled(let id), .dropCache(let id), .rollback(let id),
      .verify(let id), .confirm(let id), .reject(let id, _):
      id
    case .refreshAll, .pauseAutoRefresh, .resumeAutoRefresh, .verifyAll: nil
    }
  }

  /// Decodes `{"command":"refresh"|"reset"|"drop"|"rollback"|"verify"|"confirm","asset":ID}`,
  /// `{"command":"reject","asset":ID,"reason":TEXT}` or
  /// `{"command":"refreshAll"|"pause"|"resume"|"verifyAll"}`.
  ///
  /// - Throws: `DecodingError` for an unknown command or a missing `asset`.
  package init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let word = try c.decode(String.self, forKey: .command)
    func asset() throws -> String { try c.decode(String.self, forKey: .asset) }
    switch word {
    case "refresh": self = .refresh(id: try asset())
    case "refreshAll": self = .refreshAll
    case "reset": self = .resetToBundled(id: try asset())
    case "drop": self = .dropCache(id: try asset())
    case "rollback": self = .rollback(id: try asset())
    case "pause": self = .pauseAutoRefresh
    case "resume": self = .resumeAutoRefresh
    case "verify": self = .verify(id: try asset())
    case "verifyAll": self = .verifyAll
    case "confirm": self = .confirm(id: try asset())
    case "reject":
      self = .reject(
        id: try asset(), reason: try c.decodeIfPresent(String.self, forKey: .reason) ?? "")
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .command, in: c, debugDescription: "unknown command \"\(word)\"")
    }
  }

  /// Encodes the command word and, for per-asset commands, the asset id.
  package func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(commandWord, forKey: .command)
    if let assetID { try c.encode(assetID, forKey: .asset) }
    if case .reject(_, let reason) = self { try c.encode(reason, forKey: .reason) }
  }
}
