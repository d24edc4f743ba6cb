import AssetModel

/// The engine events that arrived while a confirm dialog froze the table, folded so the queue
/// stays bounded by the number of assets however long the dialog stays open.
///
/// Applying the folded queue gives the state that applying every event in order would: a
/// snapshot supersedes the asset events before it, each asset keeps only the value it would end
/// with (and whether any of its changes would have highlighted its row), the engine info keeps
/// only the latest, and the log keeps only the lines the log pane could keep anyway.
public struct PendingEvents: Sendable, Equatable {
  /// One asset's queued changes: the value it would have after them.
  struct AssetChange: Sendable, Equatable {
    /// The asset as the queued statuses and progress left it.
    var value: AssetStatus
    /// Whether applying the queued statuses one by one would have highlighted the row.
    var highlights: Bool
  }

  /// The last snapshot queued, applied first.
  private(set) var snapshot: EngineSnapshot?
  /// Where each asset id first appears in `snapshot`.
  private var snapshotIndex: [String: Int] = [:]
  /// The rows of `snapshot` that applying it (and the events before it) would have highlighted.
  private(set) var snapshotHighlights: Set<String> = []
  /// The last engine info queued after `snapshot`.
  private(set) var info: EngineInfo?
  /// The assets a queued status changed, by id, in the order their first status came.
  private(set) var changes: [String: AssetChange] = [:]
  private(set) var changeOrder: [String] = []
  /// The latest progress of assets no queued status changed (they already exist).
  private(set) var progress: [String: TransferProgress] = [:]
  /// The last log lines queued, oldest first, at most as many as the log pane keeps.
  private(set) var log: [EngineLogEntry] = []

  /// Creates an empty queue.
  public init() {}

  /// How many entries the queue holds: at most the assets plus the log lines plus two.
  public var count: Int {
    (snapshot == nil ? 0 : 1) + (info == nil ? 0 : 1) + changes.count + progress.count
      + log.count
  }

  /// Whether nothing is queued.
  public var isEmpty: Bool { count == 0 }

  /// Folds `event` into the queue. `current` is the state the queue will be applied to: its
  /// assets and info are what the events before the first snapshot compare against.
  mutating func add(_ event: EngineEvent, over current: DashboardState) {
    switch event {
    case .snapshot(let new):
      // What the events before it highlighted survives in its rows; like the reducer's
      // snapshot, it highlights what changed unless it is the first or ends the engine's load.
      let info = self.info ?? snapshot?.info ?? current.info
      let isFirst = info == nil || info?.assetsLoading != nil
      let ids = Set(new.assets.map(\.id))
      var highlights = snapshotHighlights.union(changes.filter(\.value.highlights).keys)
        .intersection(ids)
      if !isFirst {
        for asset in new.assets
        where QuietChange.highlights(from: value(of: asset.id, over: current), to: asset) {
          highlights.insert(asset.id)
        }
      }
      let log = self.log
      self = PendingEvents()
      self.log = log
      snapshot = new
      snapshotHighlights = highlights
      for (index, asset) in new.assets.enumerated() where snapshotIndex[asset.id] == nil {
        snapshotIndex[asset.id] = index
      }
    case .engineChanged(let new):
      info = new
    case .log(let entry):
      log.append(entry)
      if log.count > current.log.capacity { log.removeFirst(log.count - current.log.capacity) }
    case .assetChanged(let status):
      let before = value(of: status.id, over: current)
      let loading = (info ?? snapshot?.info ?? current.info)?.assetsLoading != nil
      let highlights = QuietChange.highlights(from: before, to: status) && !loading
      progress[status.id] = nil
      if let change = changes[status.id] {
        changes[status.id] = AssetChange(value: status, highlights: change.highlights || highlights)
      } else {
        changes[status.id] = AssetChange(value: status, highlights: highlights)
        changeOrder.append(status.id)
      }
    case .progress(let id, let new):
      if var change = changes[id] {
        change.value.activity = Self.advanced(change.value.activity, by: new)
        changes[id] = change
      } else if value(of: id, over: current) != nil {
        progress[id] = new
      }
    }
  }

  /// The activity after a progress event: progress moves only a transfer in flight.
  static func advanced(_ activity: AssetActivity, by progress: TransferProgress) -> AssetActivity {
    switch activity {
    case .downloading, .checking: .downloading(progress)
    case .idle, .validating: activity
    }
  }

  /// The value the asset `id` has after the events queued so far, nil when it would not exist.
  private func value(of id: String, over current: DashboardState) -> AssetStatus? {
    if let change = changes[id] { return change.value }
    let base: AssetStatus? =
      if let snapshot { snapshotIndex[id].map { snapshot.assets[$0] } } else { current.asset(id) }
    guard var asset = base, let progress = progress[id] else { return base }
    asset.activity = Self.advanced(asset.activity, by: progress)
    return asset
  }
}
