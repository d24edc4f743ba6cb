import AssetModel
import Foundation

extension RefreshCore {
  /// Where re-hashing one asset's cached copy stands (``AssetEngine/verify(_:)``).
  enum VerifyStep: Sendable, Equatable {
    /// The finding.
    case done(VerifyResult)
    /// The copy failed with this problem: look again under the commit lock.
    case recheck(String)
    /// The copy is damaged (confirmed): discard it if the entry and the blob file are still the
    /// ones found damaged (`file`, nil when missing).
    case discard(problem: String, file: BlobStamp?)
    /// The copy was replaced while it was hashed: check what is current now.
    case again
  }

  /// Whether `id` is among the assets `wanted` (nil: all).
  static func verifies(_ id: String, wanted: Set<String>?) -> Bool {
    wanted?.contains(id) ?? true
  }

  /// The copy of `id` to hash: what the entry on disk names now (`onDisk`, nil when the entry
  /// cannot be read), else what this process remembers.
  static func copyToCheck(onDisk: Generation??, remembered: Generation?) -> Generation? {
    onDisk ?? remembered
  }

  /// A first look at `id`'s copy found `problem` (nil: intact), or no copy (`copy` nil);
  /// `discardedAtLoad` is why this engine's start discarded it, `holdsCurrent` whether the
  /// record still names a copy, `readOnly` whether there is no lock to look again under.
  static func verifyLooked(
    _ id: String, copy: Generation?, problem: String?, discardedAtLoad: String?,
    holdsCurrent: Bool, readOnly: Bool
  ) -> VerifyStep {
    guard copy != nil else {
      // This engine's start found the copy damaged and discarded it: that is the finding
      // (a one-shot `assetwatch verify` starts an engine of its own).
      guard let why = discardedAtLoad, !holdsCurrent else {
        return .done(VerifyResult(id: id, checked: false, problem: nil))
      }
      return .done(VerifyResult(id: id, checked: true, problem: why))
    }
    guard let problem else { return .done(VerifyResult(id: id, checked: true, problem: nil)) }
    // Read-only: no lock to look again under; report what was seen (memory keeps the error).
    return readOnly ? .discard(problem: problem, file: nil) : .recheck(problem)
  }

  /// The second look, under the commit lock, found `check`.
  static func verifyRechecked(_ id: String, _ check: CopyCheck) -> VerifyStep {
    switch check {
    case .intact: .done(VerifyResult(id: id, checked: true, problem: nil))
    case .changed: .again
    case .damaged(let problem, let file): .discard(problem: problem, file: file)
    }
  }

  /// The error a damaged copy leaves on the entry: the problem, and what is served instead.
  static func damage(_ problem: String, hasBundled: Bool, at now: Date) -> AssetErrorRecord {
    let fallback = hasBundled ? "using the bundled copy" : "no copy left"
    return AssetErrorRecord(
      kind: .corrupt, message: SentenceText.joined([problem, fallback]), at: now)
  }

  /// Clears `entry`'s current copy when it still names `copy` and its blob file is still the one
  /// found damaged (`sameFile`, asked only then); records `error`.
  static func discardDamaged(
    _ entry: inout CacheEntry, copy: Generation, error: AssetErrorRecord,
    sameFile: (String) -> Bool
  ) {
    guard let current = entry.current, current.isSameCopy(as: copy), sameFile(current.sha256)
    else { return }
    entry.current = nil
    entry.checkedAt = nil
    entry.lastError = error
  }

  /// Whether the copy was discarded: on a read-only cache in memory only (the copy is reported
  /// damaged), else when the entry written (`written`, nil when the write failed) shows it.
  static func discarded(readOnly: Bool, written: CacheEntry?, error: AssetErrorRecord) -> Bool {
    readOnly || (written.map { $0.current == nil && $0.lastError == error } ?? false)
  }
}
