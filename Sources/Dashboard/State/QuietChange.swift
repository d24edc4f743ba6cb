import AssetModel

/// Which engine events change only what the screen shows at a second's precision anyway: a
/// revalidation answered `304` (the check's start and end, a new `checkedAt`, the next check's
/// time, a history line). Those rows are not highlighted as changed, and such events alone do
/// not ask for a frame: the next second's tick draws what they did, so a quiet rollout costs a
/// link one frame a second, not one per check.
public enum QuietChange {
  /// Whether replacing `old` by `new` changes nothing but the revalidation's bookkeeping.
  public static func isQuiet(from old: AssetStatus, to new: AssetStatus) -> Bool {
    guard old.id == new.id, isQuiet(old.activity), isQuiet(new.activity) else { return false }
    return bookkeepingCleared(old) == bookkeepingCleared(new)
  }

  /// Whether replacing `old` (nil: a new row) by `new` highlights the row: a change, and not
  /// a quiet one.
  public static func highlights(from old: AssetStatus?, to new: AssetStatus) -> Bool {
    guard let old else { return true }
    return old != new && !isQuiet(from: old, to: new)
  }

  /// Whether `input`, applied to `state`, changes nothing a frame must show at once.
  public static func isQuiet(_ input: DashboardInput, over state: DashboardState) -> Bool {
    guard case .engine(let event) = input, !state.isFrozen else { return false }
    switch event {
    case .assetChanged(let status):
      guard let old = state.asset(status.id) else { return false }
      return old == status || isQuiet(from: old, to: status)
    case .engineChanged(let info):
      guard var old = state.info else { return false }
      old.manifestCheckedAt = info.manifestCheckedAt  // shown nowhere
      return old == info
    case .snapshot, .progress, .log: return false
    }
  }

  /// A check without a body in flight, or none.
  private static func isQuiet(_ activity: AssetActivity) -> Bool {
    activity == .idle || activity == .checking
  }

  private static func bookkeepingCleared(_ status: AssetStatus) -> AssetStatus {
    var status = status
    status.activity = .idle
    status.checkedAt = nil
    status.nextAttemptAt = nil
    status.history = []
    status.ttl = 0
    return status
  }
}
