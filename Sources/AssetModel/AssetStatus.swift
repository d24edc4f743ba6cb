import Foundation

/// What is happening to an asset right now.
package enum AssetActivity: Sendable, Equatable {
  /// Nothing in flight.
  case idle
  /// A conditional request is under way (no body yet).
  case checking
  /// A body is streaming in.
  case downloading(TransferProgress)
  /// The body arrived and is being validated.
  case validating
}

/// Progress of one transfer.
public struct TransferProgress: Sendable, Equatable {
  /// Bytes written so far (including a resumed prefix).
  public var receivedBytes: Int64
  /// The total, when the server or the config says it.
  public var expectedBytes: Int64?
  /// Recent throughput in bytes per second.
  public var bytesPerSecond: Double
  /// Of ``receivedBytes``, how many were copied from a cached copy instead of fetched (a delta
  /// update: only the chunks the cache lacks travel); 0 for a whole download.
  public var reusedBytes: Int64

  /// Creates a progress value.
  public init(
    receivedBytes: Int64, expectedBytes: Int64?, bytesPerSecond: Double, reusedBytes: Int64 = 0
  ) {
    self.receivedBytes = receivedBytes
    self.expectedBytes = expectedBytes
    self.bytesPerSecond = bytesPerSecond
    self.reusedBytes = reusedBytes
  }

  /// The most bytes a decoded progress carries (1 EiB): far above any asset, far below where
  /// sums of byte counts overflow.
  public static let maxBytes: Int64 = 1 << 60
  /// The fastest rate a decoded progress carries (1 EiB/s).
  public static let maxBytesPerSecond = Double(maxBytes)

  /// Bytes that came over the network (received minus reused).
  public var fetchedBytes: Int64 {
    let (difference, overflow) = receivedBytes.subtractingReportingOverflow(reusedBytes)
    return overflow ? 0 : max(0, difference)
  }

  /// Fraction done in 0...1, when the total is known.
  public var fraction: Double? {
    guard let expectedBytes, expectedBytes > 0 else { return nil }
    return min(1, max(0, Double(receivedBytes) / Double(expectedBytes)))
  }

  /// Seconds left at the current rate, when known.
  public var secondsRemaining: Double? {
    guard let expectedBytes, bytesPerSecond > 0, bytesPerSecond.isFinite else { return nil }
    return max(0, (Double(expectedBytes) - Double(receivedBytes)) / bytesPerSecond)
  }
}

/// Why the last attempt failed.
public struct AssetErrorRecord: Sendable, Equatable, Codable {
  /// What kind of failure it was (`.refused`, `.httpStatus`, `.corrupt`, ...), encoded as its
  /// snake_case word (`refused`, `http_status`, `corrupt`).
  public var kind: AssetErrorKind
  /// One readable sentence, already stripped of control characters.
  public var message: String
  /// When it happened.
  public var at: Date

  /// Creates an error record.
  public init(kind: AssetErrorKind, message: String, at: Date) {
    self.kind = kind
    self.message = message
    self.at = at
  }
}

/// One past refresh attempt, for the detail pane's history.
package struct RefreshRecord: Sendable, Equatable, Codable {
  /// When the attempt ended.
  package var at: Date
  /// How it ended (`.updated`, `.notModified`, `.failed`, ...), encoded as its word.
  package var outcome: RefreshOutcomeKind
  /// A short detail (new version, or the error message).
  package var detail: String?

  /// Creates a record.
  package init(at: Date, outcome: RefreshOutcomeKind, detail: String?) {
    self.at = at
    self.outcome = outcome
    self.detail = detail
  }
}

/// Everything known about one asset at one moment: what the engine publishes and the UI shows.
public struct AssetStatus: Sendable, Equatable, Identifiable {
  /// The asset id (`[a-z0-9][a-z0-9._-]{0,63}`).
  public var id: String
  /// The remote URL, as configured or set by the manifest.
  public var remote: String?
  /// The configured format word (`json`, `text`, `png`, `jpeg`, `binary`, or a custom name).
  public var format: String
  /// Whether the app cannot work without it.
  public var essential: Bool
  /// Where the bytes served now come from.
  public var source: AssetSource
  /// Manifest version, else the first 8 hex digits of the SHA-256, else `nil`.
  public var version: String?
  /// The version the manifest asks for, if any.
  public var targetVersion: String?
  /// Validators of the committed payload.
  public var etag: String?
  /// The `Last-Modified` of the committed payload.
  public var lastModified: String?
  /// SHA-256 (lowercase hex) of the bytes served now.
  public var sha256: String?
  /// Size in bytes of the bytes served now.
  public var size: Int64?
  /// Absolute path of the bytes served now.
  public var path: String?
  /// Absolute path of the entry metadata file.
  public var entryPath: String?
  /// When the bytes last changed.
  public var fetchedAt: Date?
  /// When the last successful check ended.
  public var checkedAt: Date?
  /// When the scheduler will try next.
  public var nextAttemptAt: Date?
  /// The last failure, cleared by the next success.
  public var lastError: AssetErrorRecord?
  /// Failures in a row.
  public var consecutiveFailures: Int
  /// Seconds a check stays fresh.
  public var ttl: TimeInterval
  /// Further seconds a check stays stale.
  public var maxStale: TimeInterval
  /// The server's `must-revalidate` (assets whose ttl is `"server"`): past `ttl` the copy is
  /// `EXPIRED`, since it may not be used without a successful revalidation.
  public var mustRevalidate = false
  /// The server's RFC 5861 `stale-while-revalidate`: seconds past `ttl` during which the stale
  /// copy is served at once while one background revalidation runs.
  public var staleWhileRevalidate: TimeInterval?
  /// The server's RFC 5861 `stale-if-error`: seconds past `ttl` during which the copy keeps
  /// being served (`STALE`, not `FAILED`) when revalidation fails.
  public var staleIfError: TimeInterval?
  /// Why the server's headers gave the freshness they did, when that is worth saying (an invalid
  /// `max-age`, an `Expires` in the past, `no-cache`); written by the engine, never server text.
  public var freshnessNote: String?
  /// Whether this asset refreshes continuously from a local file.
  public var isLive: Bool
  /// Whether a previous generation exists to roll back to.
  public var canRollback: Bool
  /// Whether the asset ships a bundled copy (what reset and drop fall back to).
  public var hasBundledCopy: Bool
  /// What is in flight.
  package var activity: AssetActivity
  /// Whether automatic refreshes are paused.
  public var paused: Bool
  /// The last attempts, newest first (at most 10).
  package var history: [RefreshRecord]
  /// The staged rollout of the target, when it is staged.
  package var rollout: RolloutStage? = nil
  /// The version served on probation, until confirmed.
  package var probation: AssetProbation? = nil
  /// The version last rejected, while the target still names it.
  package var rejected: AssetRejection? = nil
  /// How the origin answers revalidations, once a whole body came back unchanged or the server
  /// was seen ignoring `If-None-Match` (nil before either happened).
  package var revalidation: OriginRevalidation? = nil

  /// Creates a status; every field but `id` has a neutral default.
  package init(
    id: String, remote: String? = nil, format: String = "binary", essential: Bool = false,
    source: AssetSource = .none, version: String? = nil, targetVersion: String? = nil,
    etag: String? = nil, lastModified: String? = nil, sha256: String? = nil, size: Int64? = nil,
    path: String? = nil, entryPath: String? = nil, fetchedAt: Date? = nil, checkedAt: Date? = nil,
    nextAttemptAt: Date? = nil, lastError: AssetErrorRecord? = nil, consecutiveFailures: Int = 0,
    ttl: TimeInterval = 300, maxStale: TimeInterval = 3600, isLive: Bool = false,
    canRollback: Bool = false, hasBundledCopy: Bool = false, activity: AssetActivity = .idle,
    paused: Bool = false,
    history: [RefreshRecord] = []
  ) {
    self.id = id
    self.remote = remote
    self.format = format
    self.essential = essential
    self.source = source
    self.version = version
    self.targetVersion = targetVersion
    self.etag = etag
    self.lastModified = lastModified
    self.sha256 = sha256
    self.size = size
    self.path = path
    self.entryPath = entryPath
    self.fetchedAt = fetchedAt
    self.checkedAt = checkedAt
    self.nextAttemptAt = nextAttemptAt
    self.lastError = lastError
    self.consecutiveFailures = consecutiveFailures
    self.ttl = ttl
    self.maxStale = maxStale
    self.isLive = isLive
    self.canRollback = canRollback
    self.hasBundledCopy = hasBundledCopy
    self.activity = activity
    self.paused = paused
    self.history = history
  }

  /// The STATE word at `now` (ARCHITECTURE.md, "State model").
  ///
  /// Order: work in flight, then no copy (`MISSING`), then a failed last attempt (`FAILED`, or
  /// `STALE` while the server's `stale-if-error` covers it), then `PAUSED`, then `BUNDLED` (never
  /// checked), then freshness of the last check (`EXPIRED` right past `ttl` under
  /// `must-revalidate`).
  public func state(at now: Date) -> AssetState {
    switch activity {
    case .checking: return .checking
    case .downloading: return .downloading
    case .validating: return .validating
    case .idle: break
    }
    if source == .none { return .missing }
    if consecutiveFailures > 0 { return isServingStaleIfError(at: now) ? .stale : .failed }
    // A pause is the engine's state, not the asset's: the row keeps its freshness (the header
    // says PAUSED and NEXT says `paused`).
    guard let checkedAt else { return source == .bundled ? .bundled : .stale }
    switch Freshness.of(
      checkedAt: checkedAt, now: now, ttl: ttl, maxStale: maxStale, mustRevalidate: mustRevalidate)
    {
    case .fresh: return .fresh
    case .stale: return .stale
    case .expired: return .expired
    }
  }

  /// Whether the app can use the asset at all (some copy is served).
  public var isUsable: Bool { source != .none }

  /// Whether the manifest names a target version and the copy served now is not it (another
  /// version, or no copy at all): the asset is behind the rollout. Without a target, never.
  public var isBehindTarget: Bool {
    guard let targetVersion else { return false }
    return source == .none || version != targetVersion
  }
}
