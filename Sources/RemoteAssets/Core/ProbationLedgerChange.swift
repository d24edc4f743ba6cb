import AssetModel
import Foundation

/// A change to one asset's item of the rollout ledger (`<cache>/rollouts.json`), as a value: the
/// probation core says what to write, the engine writes it under the commit lock.
enum ProbationLedgerChange: Sendable, Equatable {
  /// New bytes were committed: `probation` is what is on probation now (nil: none), the
  /// rejections are cleared when `clearRejections`, and run `claimedBy` serves the probation
  /// (nil: no run does).
  case begin(AssetProbation?, clearRejections: Bool, claimedBy: RunIdentity?)
  /// Probation ended (confirmed, or its time ran out): nothing on probation, no run serves it.
  case end
  /// The served bytes were rejected (and it went back): the rejection is recorded, nothing is on
  /// probation any more.
  case reject(AssetRejection)
  /// Run `run` serves `probation` (crashes counted) until it shuts down cleanly.
  case claim(AssetProbation, by: RunIdentity)
  /// The probation's wall-clock deadline moved (the wall clock was stepped); who serves it
  /// does not change.
  case restamp(AssetProbation)

  /// Applies the change to `id`'s item of `ledger` (made when it has none).
  func apply(to ledger: inout RolloutLedger, id: String) {
    var item = ledger.assets[id] ?? RolloutLedger.Item()
    apply(to: &item)
    ledger.assets[id] = item
  }

  /// Applies the change to `item`.
  func apply(to item: inout RolloutLedger.Item) {
    switch self {
    case .begin(let probation, let clearRejections, let run):
      if clearRejections { item.clearRejections() }
      item.probation = probation
      if let run, probation != nil {
        item.claim(by: run)
      } else {
        item.release()
      }
    case .end:
      item.probation = nil
      item.release()
    case .reject(let rejection):
      item.reject(rejection)
      item.probation = nil
      item.release()
    case .claim(let probation, let run):
      item.probation = probation
      item.claim(by: run)
    case .restamp(let probation):
      item.probation = probation
    }
  }
}
