import Foundation

/// The engine's working state for one asset: its definition (as the manifest amended it), its
/// persisted entry, and what is in flight.
struct AssetRecord: Sendable {
  var definition: AssetDefinition
  var entry: CacheEntry
  var targetVersion: String?
  var activity: AssetActivity = .idle
  var history: [RefreshRecord] = []
  /// SHA-256 and size of the bundled copy, computed at start.
  var bundledDigest: (sha256: String, size: Int64)?
  /// Set after 401/403: no automatic refresh until a manual one.
  var autoRefreshBlocked = false
  /// The entry as this process last read it from or wrote it to disk (nil: no file); a
  /// difference from the disk means another process changed it.
  var synced: CacheEntry?
  /// The entry file's stamp when this process last read or wrote it: another process's write
  /// changes it, so an unchanged stamp needs no read.
  var syncedStamp: BlobStamp?
  /// Bumped by every command that changes what is served (reset, drop, rollback); a refresh that
  /// started under another epoch discards its result instead of committing over the command.
  var epoch: UInt64 = 0
  /// Why the manifest's URL for this asset was refused (`invalid_url`, say): while set, a check
  /// fails with it and nothing is fetched.
  var urlRefusal: FetchError?
  /// When the check in flight sent its request (`request_time` of RFC 9111 §4.2.3).
  var requestedAt: Date?
  /// When the attempt in flight got its transfer slot (monotonic; for the duration histogram).
  var attemptStartedAt: MonotonicReading?
  /// When a live poll that found the file unchanged last told subscribers (and the disk) that
  /// the copy is still fresh.
  var renewalPublishedAt: Date?
  /// Where this instance stands in a staged rollout of the target (nil when not staged).
  var rolloutStage: RolloutStage?
  /// Why nothing is fetched now although the target is known: held back by a staged rollout
  /// that names no `from` (the instance keeps what it serves).
  var holdReason: String?
  /// The version on probation (see ``ProbationPolicy``).
  var probation: AssetProbation?
  /// The version last rejected: its bytes are not fetched or committed again.
  var rejection: AssetRejection?
  /// The chunk index last read for this asset (its SHA-256) and the file it describes (nil: it
  /// could not be used: missing, invalid, another size). While the manifest names the same
  /// index and that file is the current copy, a check has no reason to fetch the index again (a
  /// manifest that names no file hash would otherwise cost one per check); one that could not
  /// be used is not fetched again to be kept after the whole download.
  var indexRead: (index: String, file: String?)?
  /// Delta attempts of one index (its resume tag) cut in a row without getting further than
  /// `reached` bytes: at ``RefreshCore/deltaStallLimit`` the next attempt downloads the whole
  /// file instead of resuming the delta (a range that fails the same way every time must not
  /// hold the update back for ever).
  var deltaStall: (tag: String, reached: Int64, count: Int)?
  /// Why this engine's start discarded the cached copy (damaged, unreadable): what ``verify``
  /// reports for it, as no copy is left to hash.
  var discardedAtLoad: String?

  /// What a manifest decides about this asset; a change makes a refresh due.
  var targetFacts: [String?] {
    [
      definition.remote?.absoluteString, definition.sha256,
      definition.expectedSize.map(String.init),
      targetVersion,
    ]
  }

  var source: AssetSource {
    if entry.current != nil { return .cached }
    return definition.bundled != nil ? .bundled : .none
  }

  /// The server's freshness, when the asset follows the server (ttl `"server"`).
  var serverFreshness: ServerFreshness? {
    if case .server = definition.ttl { return entry.serverFreshness }
    return nil
  }

  /// The ttl in force, counted from `checkedAt`: when the asset follows the server, what is left
  /// of the response's lifetime after its initial age (RFC 9111 §4.2), or the configured
  /// fallback when the response said nothing about freshness.
  var effectiveTTL: TimeInterval {
    guard case .server = definition.ttl else { return definition.ttl.baseSeconds }
    if let freshness = entry.serverFreshness {
      return freshness.remainingLifetime ?? definition.ttl.baseSeconds
    }
    return entry.serverTTL ?? definition.ttl.baseSeconds
  }

  /// Ends an attempt: idle activity, a line of history (`detail` sanitized for a terminal)
  /// at `now`; returns how long the attempt took since it started, measured on the monotonic
  /// clock as `instant` (nil: it was not timed).
  mutating func finishAttempt(
    _ outcome: RefreshOutcome, detail: String?, at now: Date, instant: MonotonicReading
  ) -> Duration? {
    activity = .idle
    appendHistory(
      RefreshRecord(
        at: now, outcome: outcome.kind, detail: detail.map { TerminalText.sanitize($0) }))
    defer { attemptStartedAt = nil }
    return attemptStartedAt?.duration(to: instant)
  }

  mutating func appendHistory(_ record: RefreshRecord) {
    history.insert(record, at: 0)
    if history.count > 10 { history.removeLast(history.count - 10) }
  }

  /// A URL as shown to people: no user info, and a query (which may carry a token) elided.
  static func displayURL(_ url: URL) -> String {
    if url.isFileURL { return "file://" + url.path }
    // Most URLs have nothing to hide: shown as they are, without taking them apart.
    if url.user == nil, url.password == nil, url.query == nil {
      return TerminalText.sanitize(url.absoluteString)
    }
    guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "" }
    parts.user = nil
    parts.password = nil
    let elided = parts.query != nil
    parts.query = nil
    return TerminalText.sanitize((parts.string ?? "") + (elided ? "?…" : ""))
  }

  /// The size of the copy served now: the cached blob's, else the bundled copy's.
  var servedSize: Int64? {
    entry.current?.size ?? (definition.bundled != nil ? bundledDigest?.size : nil)
  }

  /// Why a check fetches nothing now: held back without a `from`, or the target is the
  /// rejected version's bytes. Nil when it may fetch.
  var reasonToHold: String? {
    if let holdReason { return holdReason }
    if let rejection, let sha = definition.sha256, sha == rejection.sha256 {
      let version = rejection.version.map { " \($0)" } ?? ""
      return SentenceText.joined([
        "rejected\(version): \(rejection.reason)", "not fetched until the target changes",
      ])
    }
    return nil
  }

  /// The version served now, as the status shows it: the cached copy's (the first 8
  /// characters of its hash without one), or the bundled copy's (the manifest's target version
  /// when the bundled bytes are that target); nil when nothing is known of what is served.
  var servedVersion: String? {
    if let current = entry.current { return current.version ?? String(current.sha256.prefix(8)) }
    guard definition.bundled != nil, let bundledDigest else { return nil }
    // Bundled bytes that are the manifest's target are that version, not merely a hash.
    let isTarget = targetVersion != nil && definition.sha256 == bundledDigest.sha256
    return isTarget ? targetVersion : String(bundledDigest.sha256.prefix(8))
  }

  func status(store: CacheStore, paused: Bool) -> AssetStatus {
    var s = AssetStatus(id: definition.id)
    s.remote = definition.remote.map(Self.displayURL)
    s.format = definition.format.rawValue
    s.essential = definition.essential
    s.source = source
    s.targetVersion = targetVersion
    s.version = servedVersion
    if let current = entry.current {
      s.etag = current.etag
      s.lastModified = current.lastModified
      s.sha256 = current.sha256
      s.size = servedSize
      s.path = store.objectPath(current.sha256)
      s.fetchedAt = current.fetchedAt
    } else if let bundled = definition.bundled {
      if let bundledDigest {
        s.sha256 = bundledDigest.sha256
        s.size = servedSize
      }
      if case .file(let url) = bundled { s.path = url.path }
    }
    s.entryPath = store.entryPath(definition.id)
    s.checkedAt = entry.current == nil ? nil : entry.checkedAt
    s.nextAttemptAt = entry.nextAttemptAt
    s.lastError = entry.lastError
    s.consecutiveFailures = entry.consecutiveFailures
    s.ttl = effectiveTTL
    s.maxStale = definition.maxStale
    if let freshness = serverFreshness {
      s.mustRevalidate = freshness.mustRevalidate
      s.staleWhileRevalidate = freshness.staleWhileRevalidate
      s.staleIfError = freshness.staleIfError
      s.freshnessNote = freshness.note
    }
    s.isLive = definition.refresh == .live
    s.canRollback = entry.previous != nil
    s.hasBundledCopy = definition.bundled != nil
    s.activity = activity
    s.paused = paused
    s.history = history
    s.rollout = rolloutStage
    s.probation = probation.flatMap { $0.sha256 == entry.current?.sha256 ? $0 : nil }
    s.rejected = rejection
    s.revalidation = entry.revalidation?.summary
    return s.sanitizedForDisplay()  // server and disk text is cleaned once, here, for every sink
  }
}
