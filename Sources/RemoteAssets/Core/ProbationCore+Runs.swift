import AssetModel
import Foundation

/// What the probation core decides around a run of the engine: at start (the ledger loaded,
/// the crash-loop guard's candidates and the runs that ended), after a commit, and at a clean
/// shutdown (the claims released). Decisions only; the engine reads and writes the ledger.
extension ProbationCore {
  /// At start: each ledger item of an asset the engine has (`copies` is nil for another).
  mutating func load(
    _ ledger: RolloutLedger, copies: (String) -> Copies?, at now: ClockReading
  ) -> [ProbationAction] {
    var actions: [ProbationAction] = []
    for (id, item) in ledger.assets.sorted(by: { $0.key < $1.key }) {
      guard let copies = copies(id) else { continue }
      actions += load(id, item: item, served: copies.current?.sha256, at: now)
    }
    return actions
  }

  /// Bytes `sha` of `id` were committed from the network (`copies` nil: the asset went
  /// meanwhile, nothing happens). While auto-refresh runs (`autoRefresh`), run `run` claims
  /// the probation; a one-shot command claims nothing.
  mutating func committed(
    _ id: String, copies: Copies?, sha: String, version: String?, at now: ClockReading,
    policy: ProbationPolicy, autoRefresh: Bool, run: RunIdentity
  ) -> [ProbationAction] {
    guard copies != nil else { return [] }
    return committed(
      id, sha: sha, version: version, at: now, policy: policy, run: autoRefresh ? run : nil)
  }

  /// The assets of `order` whose probation this run claims when auto-refresh starts (none
  /// without a policy or on a read-only cache).
  func toClaim(_ order: [String], policy: ProbationPolicy, readOnly: Bool) -> [String] {
    guard policy.enabled, !readOnly else { return [] }
    return onProbation(order)
  }

  /// The assets of `order` whose claims a clean shutdown releases (none on a read-only cache).
  func toRelease(_ order: [String], readOnly: Bool) -> [String] {
    guard !readOnly else { return [] }
    return onProbation(order)
  }

  /// Of `ids`, those whose run recorded in `ledger` as serving them ended without a clean
  /// shutdown (``RunIdentity/recordedRunEnded(_:me:runLive:isAlive:startTicks:)``).
  static func endedRuns(
    _ ids: [String], in ledger: RolloutLedger, me: RunIdentity, runLive: (String) -> Bool?
  ) -> Set<String> {
    Set(
      ids.filter { id in
        guard let item = ledger.assets[id] else { return false }
        return RunIdentity.recordedRunEnded(item, me: me, runLive: runLive)
      })
  }

  /// Whether run `me` claims any of `ids` in `ledger` (a one-shot command claims nothing: no
  /// write, and no fsync, at its exit).
  static func claimsAny(_ ids: [String], by me: RunIdentity, in ledger: RolloutLedger) -> Bool {
    ids.contains { ledger.assets[$0]?.isClaimed(by: me) == true }
  }

  /// Releases run `me`'s claims on `ids` in `ledger`: they are not served by it any more.
  static func release(_ ids: [String], by me: RunIdentity, in ledger: inout RolloutLedger) {
    for id in ids where ledger.assets[id]?.isClaimed(by: me) == true {
      ledger.assets[id]?.release()
    }
  }
}
