import Foundation

/// Everything the engine knows and decides from, in one value: the per-asset records and their
/// order, the lifecycle, and the state of each decision core (refresh schedule, manifest and
/// signed metadata, probation and rejections, freshness not yet written, loading, other
/// processes' changes, the disk budget, reloads). It does no I/O and never reads a clock: the
/// cores' event functions take the time with each event and return the actions the actor
/// (``AssetEngine``) performs, whose results come back as events.
///
/// The actor keeps this value beside its I/O handles (``EngineIO``), its tasks
/// (``EngineTasks``), the refreshes in flight and the app's validators; nothing else it holds
/// decides anything.
struct EngineCore: Sendable {
  /// The retry policy after failures (a refresh's decisions read it).
  let backoff: Backoff
  /// Every configured asset's record (one dense array; see ``RecordTable``).
  var records = RecordTable()
  /// The assets in configuration order.
  var order: [String] = []
  /// Started, shut down, paused.
  var lifecycle = EngineLifecycle()
  /// The last manifest fetched.
  var manifest: StoredManifest?
  /// The manifest's checks, single flight and backoff, and what applying it changes.
  var manifestSchedule = ManifestCore()
  /// What a scheduler tick does when, and the wall-clock steps it notices.
  var scheduler = SchedulerCore()
  /// What is on probation and rejected.
  var probations = ProbationCore()
  /// Freshness from 304s not yet written durably.
  var freshness = FreshnessBuffer()
  /// Which assets the start loads, and which it has not read yet.
  var loading = LoadCore()
  /// What the look for other processes' changes knows.
  var external = ExternalChanges()
  /// Signed metadata's decisions: refusals, targets applied, what is held over.
  var trust = TrustCore()
  /// The cache's measured size and the disk budget's passes.
  var budget = BudgetCore()
  /// Configuration reloads: refusals, the wait for the start, what a reload changes.
  var reload = ReloadCore()

  /// A core with no assets yet, deciding retries with `backoff`.
  init(backoff: Backoff) {
    self.backoff = backoff
  }
}

extension EngineCore {
  /// A start, as ``LoadCore/start(order:only:batchSize:sweep:folder:)`` plans it: the order
  /// becomes the plan's, and the records of assets it leaves out are dropped.
  ///
  /// - Returns: The plan the actor performs (batches to read, notices to log, the sweep).
  mutating func startLoading(
    only ids: Set<String>?, batchSize: Int?, sweep: StartSweep, folder: LoadCore.Folder
  ) -> LoadCore.Plan {
    let plan = loading.start(
      order: order, only: ids, batchSize: batchSize, sweep: sweep, folder: folder)
    order = plan.order
    if let keep = plan.keep { records.keep(only: keep) }
    // Each loaded asset's journal note is kept here: room for them all at once, not a table of
    // large entries grown (and every entry moved) ten times over a start of 1,000.
    freshness.notes.reserveCapacity(plan.order.count)
    return plan
  }
}
