import AssetModel
import Foundation

/// Rollback's decisions: which generation it goes back to, when it refuses (nothing to go back
/// to, a rejected copy, a damaged copy, an entry another process changed meanwhile) and how the
/// entry changes. The engine performs the looks (the entry on disk, the blob's hash, the check
/// under the commit lock) and the write, feeding each result in; a refusal is thrown.
extension CommandCore {
  /// The generation a rollback goes back to: the previous one the entry on disk names
  /// (`onDisk`: nil when the entry cannot be read, `.some(nil)` when there is none), else the
  /// one this engine remembers.
  static func rollbackTarget(onDisk: CacheEntry??, remembered: Generation?) -> Generation? {
    switch onDisk {
    case .some(let entry): entry?.previous
    case .none: remembered
    }
  }

  /// The generation found to go back to; refused when there is none.
  static func rollbackFrom(_ id: String, _ previous: Generation?) throws(CommandError)
    -> Generation
  {
    guard let previous else {
      throw CommandError(message: "\(id): there is no previous generation to roll back to")
    }
    return previous
  }

  /// Decides after hashing the copy to go back to (`problem`: what the hash found) and looking
  /// up a rejection that stands for its bytes: refused onto rejected bytes, and in a read-only
  /// cache onto a damaged copy. Returns whether the copy must be checked again under the commit
  /// lock first (always, unless the cache is read-only: it may have been replaced meanwhile).
  static func rollbackNeedsRecheck(
    _ id: String, previous: Generation, problem: String?, rejection: AssetRejection?,
    readOnly: Bool
  ) throws(CommandError) -> Bool {
    // Never back onto bytes a rejection blocks (the copy a `reject` went back from).
    if let rejection {
      let shown = rejection.version ?? String(previous.sha256.prefix(8))
      throw CommandError(
        message: "\(id): cannot roll back: the previous generation, \(shown), was rejected")
    }
    guard readOnly else { return true }
    if let problem { throw CommandError(message: "\(id): cannot roll back: \(problem)") }
    return false
  }

  /// The refusal when the check under the lock could not be made.
  static func rollbackFailed(_ id: String, _ error: any Error) -> CommandError {
    CommandError(message: "\(id): roll back failed: \(error)")
  }

  /// Decides on what the check under the commit lock found.
  static func rollbackRechecked(_ id: String, _ check: CopyCheck) throws(CommandError) {
    switch check {
    case .intact: return
    case .changed: throw changedMeanwhile(id)
    case .damaged(let problem, _):
      throw CommandError(message: "\(id): cannot roll back: \(problem)")
    }
  }

  /// The swap, under the commit lock on the entry as it is on disk now: only when it still
  /// names the copy checked as its previous generation.
  static func swapBack(_ entry: inout CacheEntry, to previous: Generation) {
    guard entry.previous?.isSameCopy(as: previous) == true else { return }
    entry.previous = entry.current
    entry.current = previous
    entry.lastError = nil
    entry.consecutiveFailures = 0
  }

  /// What a rollback that wrote `result` says; refused when the swap did not happen (another
  /// process changed the entry meanwhile).
  static func rolledBack(_ id: String, to previous: Generation, result: CacheEntry)
    throws(CommandError) -> String
  {
    guard result.current?.isSameCopy(as: previous) == true else { throw changedMeanwhile(id) }
    return "rolled back to \(previous.version ?? String(previous.sha256.prefix(8)))"
  }

  /// The refusal of a rollback whose entry another process changed while it looked.
  static func changedMeanwhile(_ id: String) -> CommandError {
    CommandError(
      message:
        "\(id): cannot roll back: another process changed the cached copy meanwhile; nothing was changed, run it again"
    )
  }
}
