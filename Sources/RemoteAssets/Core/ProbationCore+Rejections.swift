import AssetModel
import Foundation

/// The rejections that stand, as the probation core answers about them: which need the
/// ledger read, what a check says while the target is rejected, and which copy a commit keeps
/// to go back to.
extension ProbationCore {
  /// What the core knows of a rejection of some bytes without reading the ledger.
  struct KnownRejection: Sendable, Equatable {
    /// The rejection (nil: none stands).
    var rejection: AssetRejection?
  }

  /// Whether bytes `sha` of `id` are rejected, when the core knows without the ledger: none
  /// stands at all, or the last one is of those bytes. Nil: the ledger keeps the answer.
  func knownRejection(of sha: String, _ id: String) -> KnownRejection? {
    guard let last = rejection(id) else { return KnownRejection(rejection: nil) }
    guard last.sha256 == sha else { return nil }
    return KnownRejection(rejection: last)
  }

  /// Every rejection of `id` that stands, oldest first: `ledger`'s (which keeps the last
  /// ``RolloutLedger/Item/maxRejections``), and the core's last one. Nil `ledger`: the ledger
  /// has no item for it.
  func standing(_ id: String, ledger: [AssetRejection]?) -> [AssetRejection] {
    guard let last = rejection(id) else { return [] }
    var all = ledger ?? []
    if !all.contains(where: { $0.sha256 == last.sha256 }) { all.append(last) }
    return all
  }

  /// The rejection of bytes `sha` among `standing`, the latest when several are.
  static func rejection(of sha: String, in standing: [AssetRejection]) -> AssetRejection? {
    standing.last { $0.sha256 == sha }
  }

  /// Why a check fetches nothing while the target is a rejected version's bytes.
  static func holdReason(_ rejection: AssetRejection) -> String {
    let version = rejection.version.map { " \($0)" } ?? ""
    return SentenceText.joined([
      "rejected\(version): \(rejection.reason)", "not fetched until the target changes",
    ])
  }

  /// What `entry` keeps as its previous generation, the copy a rejection goes back to, when
  /// bytes `sha` are committed over it: the copy served, unless it is still on probation
  /// (`unconfirmed`): then the previous one stays, the last confirmed copy. A copy of rejected
  /// bytes is never kept to go back to (nil when no copy qualifies).
  static func previousAfterCommit(
    of sha: String, over entry: CacheEntry, unconfirmed: String?, rejected: Set<String>
  ) -> Generation? {
    if entry.current?.sha256 == sha { return entry.previous }
    return [entry.current, entry.previous].compactMap { $0 }.first {
      $0.sha256 != sha && $0.sha256 != unconfirmed && !rejected.contains($0.sha256)
    }
  }

  /// A command's error text without the asset id it starts with (the caller names the asset).
  static func message(_ text: String, of id: String) -> String {
    guard text.hasPrefix("\(id): ") else { return text }
    return String(text.dropFirst(id.count + 2))
  }

  /// Splits `actions` into those performed at once (the record, events, log) and the ledger
  /// writes nothing waits for (a tick's, the load's), in order.
  static func split(_ actions: [ProbationAction]) -> (
    now: [ProbationAction], writes: [ProbationAction]
  ) {
    var now: [ProbationAction] = []
    var writes: [ProbationAction] = []
    for action in actions {
      if case .writeLedger = action {
        writes.append(action)
      } else {
        now.append(action)
      }
    }
    return (now, writes)
  }
}
