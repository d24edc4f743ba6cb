import Foundation
import RemoteAssets

/// One asset in `status --json`.
///
/// Keys come out in this order: `id`, `state`, `source`, `version`, `targetVersion`, `behind`, `etag`,
/// `lastModified`, `sha256`, `size`, `path`, `essential`, `fetchedAt`, `checkedAt`,
/// `nextRefreshAt`, `lastError` (`kind`, `message`, `at`), `rollout` (`percent`, `version`,
/// `heldBack`), `probation` (`version`, `since`, `until`), `rejected` (`version`, `reason`, `at`),
/// `revalidation` (`method`, `ignoresIfNoneMatchSince`, `unchangedBodyAt`, `unchangedBodyBytes`).
/// Times are ISO 8601 UTC; absent values are `null`.
struct AssetOutput: Codable, Equatable {
  /// Why the last attempt failed.
  struct Failure: Codable, Equatable {
    /// What kind of failure it was, encoded as its word (`refused`, `http_status`, ...).
    var kind: AssetErrorKind
    /// One readable sentence.
    var message: String
    /// When it happened (ISO 8601 UTC).
    var at: String

    enum CodingKeys: String, CodingKey { case kind, message, at }

    /// Encodes every key, in the documented order.
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(kind, forKey: .kind)
      try container.encode(message, forKey: .message)
      try container.encode(at, forKey: .at)
    }
  }

  var id: String
  /// The STATE word (`FRESH`, `STALE`, ...).
  var state: String
  /// `cached`, `bundled` or `none`.
  var source: String
  var version: String?
  var targetVersion: String?
  /// Whether a manifest names a target this asset does not serve yet.
  var behind: Bool
  var etag: String?
  var lastModified: String?
  var sha256: String?
  var size: Int64?
  /// The absolute path of the bytes served now.
  var path: String?
  var essential: Bool
  var fetchedAt: String?
  var checkedAt: String?
  var nextRefreshAt: String?
  var lastError: Failure?

  /// Where the asset stands in a staged rollout of its target.
  struct Rollout: Codable, Equatable {
    var percent: Double
    var version: String?
    var heldBack: Bool
    enum CodingKeys: String, CodingKey { case percent, version, heldBack }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(percent, forKey: .percent)
      try container.encode(version, forKey: .version)
      try container.encode(heldBack, forKey: .heldBack)
    }
  }

  /// The version on probation.
  struct Probation: Codable, Equatable {
    var version: String?
    var since: String
    var until: String?
    enum CodingKeys: String, CodingKey { case version, since, until }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(version, forKey: .version)
      try container.encode(since, forKey: .since)
      try container.encode(until, forKey: .until)
    }
  }

  /// The version last rejected.
  struct Rejected: Codable, Equatable {
    var version: String?
    var reason: String
    var at: String
    enum CodingKeys: String, CodingKey { case version, reason, at }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(version, forKey: .version)
      try container.encode(reason, forKey: .reason)
      try container.encode(at, forKey: .at)
    }
  }

  /// How the origin answers revalidations: null until a whole body came back unchanged or the
  /// server was seen ignoring `If-None-Match`.
  struct Revalidation: Codable, Equatable {
    /// `etag`, `ifModifiedSince` or `identity`.
    var method: String
    var ignoresIfNoneMatchSince: String?
    var unchangedBodyAt: String?
    var unchangedBodyBytes: Int64?
    enum CodingKeys: String, CodingKey {
      case method, ignoresIfNoneMatchSince, unchangedBodyAt, unchangedBodyBytes
    }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(method, forKey: .method)
      try container.encode(ignoresIfNoneMatchSince, forKey: .ignoresIfNoneMatchSince)
      try container.encode(unchangedBodyAt, forKey: .unchangedBodyAt)
      try container.encode(unchangedBodyBytes, forKey: .unchangedBodyBytes)
    }
  }

  var rollout: Rollout? = nil
  var probation: Probation? = nil
  var rejected: Rejected? = nil
  var revalidation: Revalidation? = nil

  enum CodingKeys: String, CodingKey {
    case id, state, source, version, targetVersion, behind, etag, lastModified, sha256, size, path
    case essential, fetchedAt, checkedAt, nextRefreshAt, lastError, rollout, probation, rejected
    case revalidation
  }

  /// Encodes every key, in the documented order (`nil` as `null`).
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(state, forKey: .state)
    try container.encode(source, forKey: .source)
    try container.encode(version, forKey: .version)
    try container.encode(targetVersion, forKey: .targetVersion)
    try container.encode(behind, forKey: .behind)
    try container.encode(etag, forKey: .etag)
    try container.encode(lastModified, forKey: .lastModified)
    try container.encode(sha256, forKey: .sha256)
    try container.encode(size, forKey: .size)
    try container.encode(path, forKey: .path)
    try container.encode(essential, forKey: .essential)
    try container.encode(fetchedAt, forKey: .fetchedAt)
    try container.encode(checkedAt, forKey: .checkedAt)
    try container.encode(nextRefreshAt, forKey: .nextRefreshAt)
    try container.encode(lastError, forKey: .lastError)
    try container.encode(rollout, forKey: .rollout)
    try container.encode(probation, forKey: .probation)
    try container.encode(rejected, forKey: .rejected)
    try container.encode(revalidation, forKey: .revalidation)
  }
}

extension AssetOutput {
  /// The output for `asset` as of `now` (its state word depends on the time).
  init(_ asset: AssetStatus, at now: Date) {
    self.init(
      id: OutsideText.json(asset.id),
      state: asset.state(at: now).rawValue,
      source: asset.source.rawValue,
      version: OutsideText.json(asset.version),
      targetVersion: OutsideText.json(asset.targetVersion),
      behind: asset.isBehindTarget,
      etag: OutsideText.json(asset.etag),
      lastModified: OutsideText.json(asset.lastModified),
      sha256: OutsideText.json(asset.sha256),
      size: asset.size,
      // A file's path, said so: `URL(fileURLWithPath:)` alone stats it to learn whether it is a
      // folder (one full-path lookup an asset in `status --json`), for a slash `.path` drops.
      path: OutsideText.json(
        asset.path.map { URL(fileURLWithPath: $0, isDirectory: false).standardizedFileURL.path }),
      essential: asset.essential,
      fetchedAt: JSONTime.format(asset.fetchedAt),
      checkedAt: JSONTime.format(asset.checkedAt),
      nextRefreshAt: JSONTime.format(asset.nextAttemptAt),
      lastError: asset.lastError.map {
        Failure(
          kind: $0.kind, message: OutsideText.json($0.message),
          at: JSONTime.format($0.at) ?? "")
      })
    rollout = asset.rollout.map {
      Rollout(percent: $0.percent, version: OutsideText.json($0.version), heldBack: $0.heldBack)
    }
    probation = asset.probation.map {
      Probation(
        version: OutsideText.json($0.version), since: JSONTime.format($0.since) ?? "",
        until: JSONTime.format($0.until))
    }
    rejected = asset.rejected.map {
      Rejected(
        version: OutsideText.json($0.version), reason: OutsideText.json($0.reason),
        at: JSONTime.format($0.at) ?? "")
    }
    revalidation = asset.revalidation.map {
      Revalidation(
        method: OutsideText.json($0.method),
        ignoresIfNoneMatchSince: JSONTime.format($0.ignoresIfNoneMatchSince),
        unchangedBodyAt: JSONTime.format($0.unchangedBodyAt),
        unchangedBodyBytes: $0.unchangedBodyBytes)
    }
  }
}
