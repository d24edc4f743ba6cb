import AssetModel
import Foundation

/// Applies engine events to the dashboard state, or queues them while a confirm dialog is open.
enum EngineEventReducer {
  /// Records `event` in the stream health and applies it, unless the table is frozen.
  static func receive(_ event: EngineEvent, into state: inout DashboardState, now: Date) {
    state.health.record(at: now)
    guard state.isFrozen else {
      apply(event, to: &state, now: now)
      return
    }
    // Folded per asset, so a dialog left open under an event storm keeps a bounded queue.
    // (Taken out while it grows, so the state it reads is not also being written.)
    var pending = state.pendingEvents
    state.pendingEvents = PendingEvents()
    pending.add(event, over: state)
    state.pendingEvents = pending
  }

  /// Applies the events queued while the table was frozen: the same state as applying each of
  /// them in order.
  static func flushPending(_ state: inout DashboardState, now: Date) {
    let pending = state.pendingEvents
    state.pendingEvents = PendingEvents()
    if let snapshot = pending.snapshot {
      state.info = snapshot.info
      state.assets = snapshot.assets
      let ids = Set(snapshot.assets.map(\.id))
      state.changedAt = state.changedAt.filter { ids.contains($0.key) }
      for id in pending.snapshotHighlights { state.changedAt[id] = now }
      state.refreshRows(at: now)  // indexes the new assets for the lookups below
    }
    for id in pending.changeOrder {
      guard let change = pending.changes[id] else { continue }
      if let index = state.assetIndex(of: id) {
        if state.assets[index] != change.value {
          state.replaceAsset(at: index, with: change.value, now: now)
        }
      } else {
        state.appendAsset(change.value, now: now)
      }
      if change.highlights { state.changedAt[id] = now }
    }
    for (id, progress) in pending.progress { updateProgress(id, progress, in: &state, now: now) }
    if let info = pending.info { state.info = info }
    for entry in pending.log { state.log.append(entry) }
  }

  /// Applies one event to the table, the header facts or the log.
  static func apply(_ event: EngineEvent, to state: inout DashboardState, now: Date) {
    switch event {
    case .snapshot(let snapshot): replace(with: snapshot, in: &state, now: now)
    case .assetChanged(let status): upsert(status, in: &state, now: now)
    case .progress(let id, let progress): updateProgress(id, progress, in: &state, now: now)
    case .engineChanged(let info): state.info = info
    case .log(let entry): state.log.append(entry)
    }
  }

  /// Replaces every asset; rows that differ from the previous snapshot are highlighted (none on
  /// the first one, where everything would be "new", nor on the one that ends the engine's load).
  private static func replace(
    with snapshot: EngineSnapshot, in state: inout DashboardState, now: Date
  ) {
    let isFirst = state.info == nil || state.info?.assetsLoading != nil
    let previous = Dictionary(state.assets.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    state.info = snapshot.info
    state.assets = snapshot.assets
    let ids = Set(snapshot.assets.map(\.id))
    state.changedAt = state.changedAt.filter { ids.contains($0.key) }
    guard !isFirst else { return }
    for asset in snapshot.assets where QuietChange.highlights(from: previous[asset.id], to: asset) {
      state.changedAt[asset.id] = now
    }
  }

  private static func upsert(_ status: AssetStatus, in state: inout DashboardState, now: Date) {
    let old = state.assetIndex(of: status.id).map { state.assets[$0] }
    if let index = state.assetIndex(of: status.id) {
      guard state.assets[index] != status else { return }
      state.replaceAsset(at: index, with: status, now: now)
    } else {
      state.appendAsset(status, now: now)
    }
    // Rows arriving while the engine reads its cache at start are not changes, nor is a
    // revalidation that changed nothing but its times.
    if state.info?.assetsLoading == nil, QuietChange.highlights(from: old, to: status) {
      state.changedAt[status.id] = now
    }
  }

  /// Progress only moves a transfer the table already shows as in flight; a late progress event
  /// after completion must not resurrect the download.
  private static func updateProgress(
    _ id: String, _ progress: TransferProgress, in state: inout DashboardState, now: Date
  ) {
    guard let index = state.assetIndex(of: id) else { return }
    var asset = state.assets[index]
    switch asset.activity {
    case .downloading, .checking: asset.activity = .downloading(progress)
    case .idle, .validating: return
    }
    state.replaceAsset(at: index, with: asset, now: now)
  }
}
