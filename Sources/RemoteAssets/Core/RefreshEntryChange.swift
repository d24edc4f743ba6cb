import AssetModel
import Foundation

/// One change a refresh makes to an asset's entry, as a value: the core decides it, the engine
/// applies it in memory or under the commit lock (``apply(to:)``).
struct RefreshEntryChange: Sendable, Equatable {
  /// A successful check: when, when next, with what server freshness.
  struct Check: Sendable, Equatable {
    var at: Date
    var next: Date?
    var freshness: ServerFreshness?
  }

  /// A failed attempt.
  struct Failure: Sendable, Equatable {
    var error: AssetErrorRecord
    var failures: Int
    var next: Date?
    var rejecting: RejectedResponse?
  }

  /// New bytes made current, and what decides the previous generation kept.
  struct Commit: Sendable, Equatable {
    var generation: Generation
    /// The bytes on probation (never kept as the copy to go back to).
    var unconfirmed: String?
    /// The bytes rejected (never kept either).
    var rejected: Set<String>
  }

  /// The validators a response carried.
  struct Validators: Sendable, Equatable {
    var etag: String?
    var lastModified: String?
  }

  /// Marks a successful check.
  var check: Check?
  /// The current generation takes the response's validators.
  var validators: Validators?
  /// The revalidation note is replaced (`.some(nil)` clears it).
  var revalidation: RevalidationNote??
  /// Only the next attempt moves (a live poll hitting a problem already recorded).
  var nextAttempt: Date??
  /// Records a failure.
  var failure: Failure?
  /// Commits new bytes.
  var commit: Commit?

  /// Applies the change to `entry`.
  func apply(to entry: inout CacheEntry) {
    if let check { entry.markChecked(at: check.at, next: check.next, freshness: check.freshness) }
    if let revalidation { entry.revalidation = revalidation }
    if let validators {
      entry.current?.etag = validators.etag
      entry.current?.lastModified = validators.lastModified
    }
    if let nextAttempt { entry.nextAttemptAt = nextAttempt }
    if let failure {
      entry.lastError = failure.error
      entry.consecutiveFailures = failure.failures
      entry.nextAttemptAt = failure.next
      if let rejecting = failure.rejecting { entry.rejected = rejecting }
    }
    if let commit {
      entry.previous = AssetEngine.previousAfterCommit(
        of: commit.generation.sha256, over: entry, unconfirmed: commit.unconfirmed,
        rejected: commit.rejected)
      entry.current = commit.generation
    }
  }
}
