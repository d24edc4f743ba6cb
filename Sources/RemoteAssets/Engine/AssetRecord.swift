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
  /// Bumped by every command that changes what is served (reset, drop, rollback); a refresh that
  /// started under another epoch discards its result instead of committing over the command.
  var epoch: UInt64 = 0
  /// The validator of the last downloaded version that failed validation (live polling skips it).
  var rejectedETag: String?

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

  /// The ttl in force: the server's max-age when the asset follows the server.
  var effectiveTTL: TimeInterval {
    if case .server = definition.ttl, let serverTTL = entry.serverTTL { return serverTTL }
    return definition.ttl.baseSeconds
  }

  mutating func appendHistory(_ record: RefreshRecord) {
    history.insert(record, at: 0)
    if history.count > 10 { history.removeLast(history.count - 10) }
  }

  /// A URL as shown to people: no user info, and a query (which may carry a token) elided.
  static func displayURL(_ url: URL) -> String {
    if url.isFileURL { return "file://" + url.path }
    guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "" }
    parts.user = nil
    parts.password = nil
    let elided = parts.query != nil
    parts.query = nil
    return TerminalText.sanitize((parts.string ?? "") + (elided ? "?…" : ""))
  }

  func status(store: CacheStore, paused: Bool) -> AssetStatus {
    var s = AssetStatus(id: definition.id)
    s.remote = definition.remote.map(Self.displayURL)
    s.format = definition.format.rawValue
    s.essential = definition.essential
    s.source = source
    s.targetVersion = targetVersion
    if let current = entry.current {
      s.version = current.version ?? String(current.sha256.prefix(8))
      s.etag = current.etag
      s.lastModified = current.lastModified
      s.sha256 = current.sha256
      s.size = current.size
      s.path = store.objectURL(current.sha256).path
      s.fetchedAt = current.fetchedAt
    } else if let bundled = definition.bundled {
      if let bundledDigest {
        // Bundled bytes that are the manifest's target are that version, not merely a hash.
        let isTarget = targetVersion != nil && definition.sha256 == bundledDigest.sha256
        s.version = isTarget ? targetVersion : String(bundledDigest.sha256.prefix(8))
        s.sha256 = bundledDigest.sha256
        s.size = bundledDigest.size
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
    s.isLive = definition.refresh == .live
    s.canRollback = entry.previous != nil
    s.hasBundledCopy = definition.bundled != nil
    s.activity = activity
    s.paused = paused
    s.history = history
    return s
  }
}
