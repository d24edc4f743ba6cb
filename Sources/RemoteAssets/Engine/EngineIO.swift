import Foundation

/// The handles the engine performs its decisions through: the store on disk, the entry
/// committer, the fetchers, the transfer limiter, the event hub and the metrics. Made once with
/// the engine and never replaced; the engine's state lives beside it, not in it.
struct EngineIO: Sendable {
  /// The cache folder.
  let store: CacheStore
  /// Writes entries off the actor, in groups.
  let committer: EntryCommitter
  /// Sources of bytes; the first that `canFetch` a URL is used.
  let fetchers: [any AssetFetcher]
  /// The HTTP fetcher the engine made itself (shut down with the engine), nil when the app
  /// passed its own fetchers.
  let ownedHTTPFetcher: HTTPFetcher?
  /// At most `maxConcurrentTransfers` transfers at once.
  let limiter: TransferLimiter
  /// At most `maxConcurrentTransfers` + ``EntryCommitter/maxGroup`` refreshes under way at once
  /// (in each lane): a refresh gives its transfer slot back when the bytes are in, and is then
  /// checked and committed while the next transfer runs; each holds its partial file open until
  /// its commit, so a fast origin must not hand the committer every asset of a sync at once.
  let refreshes: TransferLimiter
  /// Event subscribers.
  let hub: EventHub
  /// Counted events.
  let metrics: EngineMetrics
}

/// Where the engine is in its life: started, automatic refresh paused, shut down.
struct EngineLifecycle: Sendable, Equatable {
  /// ``AssetEngine/start()`` ran (it runs once).
  var started = false
  /// Automatic refresh is paused (commands still run).
  var paused: Bool { pausedAt != nil }
  /// Since when automatic refresh is paused (nil while it runs).
  var pausedAt: Date?
  /// ``AssetEngine/shutdown()`` ran: nothing new starts.
  var isShutDown = false
}

/// Freshness learned from 304s, not yet written durably (see ``FreshnessJournal``).
struct FreshnessBuffer: Sendable {
  /// The notes, by asset.
  var notes: FreshnessJournal.Notes = [:]
  /// Whether `notes` changed since the journal was last written.
  var isDirty = false
  /// The write running off the actor, if any (one at a time, so the newest notes land last).
  var writing: Task<Void, Never>?

  /// The notes to write when they changed since the last write (nil: nothing to write); they
  /// count as written from now.
  mutating func takeChanged() -> FreshnessJournal.Notes? {
    guard isDirty else { return nil }
    isDirty = false
    return notes
  }

  /// The write `task` ended: it no longer runs, unless a newer write replaced it meanwhile.
  mutating func ended(_ task: Task<Void, Never>) {
    if writing == task { writing = nil }
  }
}

/// What the look for other processes' changes to `entries/` knows, and what it decides: a
/// look reads nothing while the folder is unchanged, and then only the entries whose files
/// changed since this process last read or wrote them.
struct ExternalChanges: Sendable, Equatable {
  /// The folder's stamp at the last look: unchanged means nothing to read.
  var stamp: BlobStamp?
  /// Whether a look is reading off the actor now (the scheduler starts no second one).
  var isLooking = false

  /// Whether a look that finds the folder at `folderStamp` has anything to read; remembers the
  /// stamp for the next look.
  mutating func folderChanged(_ folderStamp: BlobStamp?) -> Bool {
    guard folderStamp != stamp else { return false }
    stamp = folderStamp
    return true
  }

  /// Whether an entry file found at `now` must be read: another process wrote, replaced or
  /// removed it since this one last synced it at `synced`.
  static func mustRead(synced: BlobStamp?, now: BlobStamp?) -> Bool {
    synced != now
  }
}
