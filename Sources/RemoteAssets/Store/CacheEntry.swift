import AssetModel
import Foundation

/// One committed payload: a blob in `objects/` and the validators that came with it.
struct Generation: Codable, Sendable, Equatable {
  var sha256: String
  var size: Int64
  var version: String?
  var etag: String?
  var lastModified: String?
  var remote: String?
  var fetchedAt: Date
  /// The blob's file identity when it was committed and hash-checked: while it still matches,
  /// a start trusts the blob without re-reading it.
  var stamp: BlobStamp?
  /// When this generation stopped being current (a newer one was committed, a rollback or a
  /// reset moved it aside): its last use, by which the disk budget evicts rollback copies oldest
  /// first. Set by the engine's clock when a generation becomes `previous`; nil on a current
  /// generation and in entries written before the budget (the current one's `fetchedAt` stands
  /// in then, see ``CacheEntry/previousRetiredAt``).
  var retiredAt: Date?
}

/// A file's identity and last change: inode, size, and modification and status-change times in
/// nanoseconds. Rewriting, replacing or restoring a file changes at least one of them (`ctime`
/// cannot be set by a user), so a match means the bytes hashed at commit are still there.
struct BlobStamp: Codable, Sendable, Equatable {
  var inode: UInt64
  var size: Int64
  var modified: Int64
  var changed: Int64
}

/// The validators of a response that failed validation (wrong hash or size, bad format), so the
/// next check asks the server whether that same response is still all it has: an unchanged bad
/// file then costs a 304, not another download.
struct RejectedResponse: Codable, Sendable, Equatable {
  var etag: String?
  var lastModified: String?
  /// The URL that answered it; the validators mean nothing for another URL.
  var remote: String

  /// Whether there is anything to ask with.
  var hasValidators: Bool { etag != nil || lastModified != nil }
}

/// The metadata file `entries/<id>.json`: the commit point for an asset.
///
/// Writing it (temp + fsync + rename + fsync of the folder; a first one unnamed + fsync + link +
/// fsync of the folder) is what makes a new blob current.
struct CacheEntry: Codable, Sendable, Equatable {
  /// Bumped when the format changes incompatibly.
  static let formatVersion = 1

  var formatVersion = CacheEntry.formatVersion
  var id: String
  var appVersion: String
  /// The payload served now; nil when none is cached (serving bundled, or dropped).
  var current: Generation?
  /// The one before, kept for `rollback`.
  var previous: Generation?
  /// When the last successful check ended.
  var checkedAt: Date?
  /// Freshness granted by the server's `Cache-Control: max-age` at `checkedAt`, written by older
  /// versions; read only when `serverFreshness` is absent.
  var serverTTL: TimeInterval?
  /// What the server's headers said about freshness at `checkedAt` (RFC 9111 §4.2), for assets
  /// whose ttl is `"server"`; absent in entries written by older versions.
  var serverFreshness: ServerFreshness?
  var lastError: AssetErrorRecord?
  var consecutiveFailures = 0
  var nextAttemptAt: Date?
  /// The last response rejected by validation, while no newer response was accepted.
  var rejected: RejectedResponse?
  /// How the server answers revalidations of this asset (a whole body that came back
  /// unchanged, a server that ignores `If-None-Match`); absent until one of those happened, and
  /// in entries written by older versions.
  var revalidation: RevalidationNote?
}

extension CacheEntry {
  /// When `previous` stopped being current: its `retiredAt`, or for an entry written before that
  /// was recorded, when the current copy was fetched (a download retires the one before), or
  /// failing that when the previous copy itself was fetched.
  var previousRetiredAt: Date? {
    guard let previous else { return nil }
    return previous.retiredAt ?? current?.fetchedAt ?? previous.fetchedAt
  }

  /// When an entry was last used: its last successful check, else the newest of its copies'
  /// dates. For an asset no longer configured this is when it was last checked while it was.
  var lastUsedAt: Date? {
    let dates = [checkedAt, current?.fetchedAt, previous?.retiredAt, previous?.fetchedAt]
    return checkedAt ?? dates.compactMap { $0 }.max()
  }

  /// Records, after a change, when a generation that was not `previous` before became it (at
  /// `now`); a generation that is current again forgets its retirement.
  mutating func noteRetirement(previousBefore: Generation?, at now: Date) {
    current?.retiredAt = nil
    guard let previous else { return }
    if let before = previousBefore, previous.isSameCopy(as: before) {
      self.previous?.retiredAt = before.retiredAt ?? previous.retiredAt
    } else {
      self.previous?.retiredAt = now
    }
  }
}
