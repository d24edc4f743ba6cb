/// What a second look at one generation of an entry, under the commit lock, found.
///
/// Readers take no lock, so a check made without it may look at a copy another process has
/// just replaced (and whose blob it removed). Before the engine calls a copy damaged, or rolls
/// back to one, it looks again holding the lock, where no commit can change the entry or remove
/// a blob an entry names (``CacheStore/recheck(_:_:copy:trustingStamp:)``).
enum CopyCheck: Sendable, Equatable {
  /// The entry on disk still names the copy and its blob passes the check.
  case intact
  /// The entry on disk no longer names that copy (another process committed, reset, rolled
  /// back or dropped meanwhile): whatever was seen of the old copy says nothing about the cache.
  case changed
  /// The entry on disk still names the copy and its blob fails the check; `file` is the blob
  /// file's stamp as it was (nil when missing), so a later write acts only on that same file.
  case damaged(problem: String, file: BlobStamp?)
}

/// Which generation of an entry.
enum GenerationSlot: Sendable {
  case current
  case previous
}

extension CacheEntry {
  /// The generation in `slot`.
  subscript(slot: GenerationSlot) -> Generation? {
    switch slot {
    case .current: current
    case .previous: previous
    }
  }
}

extension Generation {
  /// Whether `other` is the same committed copy: the same bytes (SHA-256) in the same blob file
  /// (the stamp recorded at its commit). Compared without the dates, which an entry file keeps
  /// in whole seconds.
  func isSameCopy(as other: Generation?) -> Bool {
    guard let other else { return false }
    return sha256 == other.sha256 && stamp == other.stamp
  }
}
