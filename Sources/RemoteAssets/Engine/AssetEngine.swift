import Crypto
import Foundation
import Logging
import Metrics
import NIOCore

/// The caching engine: serves every asset at once from its last good copy (or the bundled one),
/// refreshes it with conditional requests, commits new bytes only after they validate, and
/// publishes everything it does through ``events()``.
///
/// Call ``shutdown()`` before letting go of an engine: it ends the event streams, cancels
/// transfers (keeping their bytes for a resume) and shuts down the HTTP client, which must not be
/// released during a run.
///
/// ```swift
/// let config = try ConfigurationLoader.load(path: "assets.json")
/// let engine = try AssetEngine(configuration: config)
/// await engine.start()                      // no network needed
/// let flags = try await engine.data("feature-flags")
/// Task { for await event in await engine.events() { print(event) } }
/// await engine.startAutoRefresh()
/// ```
public actor AssetEngine {
  /// The configuration in force (a reload, ``apply(_:)``, replaces it).
  public nonisolated var configuration: EngineConfiguration { configurationCell.current }
  nonisolated let configurationCell: ConfigurationCell
  /// The handles decisions are performed through (store, committer, fetchers, limiter, events,
  /// metrics).
  let io: EngineIO
  let clock: any EngineClock
  let logger: Logger
  /// What the engine knows and decides from (records, schedules, probation, trust, budget...):
  /// a value with no I/O; this actor performs the actions its cores return.
  var core: EngineCore
  /// The scheduler, manifest, budget and reload tasks, and the TUF client.
  var tasks = EngineTasks()
  /// Refreshes in flight (a second request for an id joins the first).
  var inFlight: [String: Task<RefreshOutcome, Never>] = [:]
  /// The app's validators (``addValidator(_:_:)``), run before a commit.
  var validators: [String: @Sendable (Data) throws -> Void] = [:]

  nonisolated var store: CacheStore { io.store }
  nonisolated var committer: EntryCommitter { io.committer }
  nonisolated var fetchers: [any AssetFetcher] { io.fetchers }
  nonisolated var limiter: TransferLimiter { io.limiter }
  nonisolated var refreshes: TransferLimiter { io.refreshes }
  nonisolated var hub: EventHub { io.hub }
  nonisolated var metrics: EngineMetrics { io.metrics }

  /// Creates an engine. Nothing is read until ``start()``.
  ///
  /// - Parameters:
  ///   - configuration: assets and settings, usually from ``ConfigurationLoader``.
  ///   - fetchers: sources of bytes; by default HTTP(S) and `file://`. The first that
  ///     `canFetch` a URL is used.
  ///   - clock: time source (tests inject `ManualClock` from `RemoteAssetsTesting`).
  ///   - logger: swift-log logger (header values are never logged).
  ///   - metricsFactory: where metrics go; the bootstrapped `MetricsSystem.factory` by default.
  ///   - environment: where the default HTTP fetcher reads `HTTPS_PROXY`, `NO_PROXY` and the
  ///     other proxy variables (the process's by default).
  /// - Throws: an error naming the folder and the fix when the cache folder is one the engine
  ///   refuses (a symlink, writable by others, or a non-empty folder it did not make). A cache
  ///   that cannot be written opens read-only instead.
  public init(
    configuration: EngineConfiguration, fetchers: [any AssetFetcher]? = nil,
    clock: any EngineClock = SystemClock(),
    logger: Logger = Logger(label: "RemoteAssets"),
    metricsFactory: (any MetricsFactory)? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws {
    try self.init(
      configuration: configuration, fetchers: fetchers, clock: clock, logger: logger,
      backoff: Backoff(), metricsFactory: metricsFactory, environment: environment)
  }

  /// Creates an engine with its own retry policy after failures (see ``init(configuration:fetchers:clock:logger:metricsFactory:environment:)``).
  package init(
    configuration: EngineConfiguration, fetchers: [any AssetFetcher]? = nil,
    clock: any EngineClock = SystemClock(),
    logger: Logger = Logger(label: "RemoteAssets"), backoff: Backoff,
    metricsFactory: (any MetricsFactory)? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws {
    let store = try CacheStore(
      root: configuration.cacheDirectory, lockTimeout: configuration.lockTimeout)
    var configuration = configuration
    configuration.instance = Self.instanceID(configuration, environment: environment, store: store)
    self.configurationCell = ConfigurationCell(configuration)
    let http = fetchers == nil ? HTTPFetcher(environment: environment) : nil
    self.io = EngineIO(
      store: store, committer: EntryCommitter(store: store),
      fetchers: fetchers ?? [http!, FileFetcher()], ownedHTTPFetcher: http,
      limiter: TransferLimiter(limit: configuration.maxConcurrentTransfers),
      refreshes: TransferLimiter(
        limit: configuration.maxConcurrentTransfers + EntryCommitter.maxGroup), hub: EventHub(),
      metrics: EngineMetrics(factory: metricsFactory ?? MetricsSystem.factory))
    self.clock = clock
    self.logger = logger
    var core = EngineCore(backoff: backoff)
    core.replaceRecords(with: configuration)
    self.core = core
  }

  // MARK: - Lifecycle

  /// Loads every asset's last good copy from disk (never the network): an intact entry written by
  /// the same app version is used; anything else falls back to the bundled copy, with the reason
  /// kept as `lastError`. Then sweeps stale partials and unreferenced blobs.
  public func start() async {
    await start(only: nil)
  }

  /// Starts like ``start()``, loading only the named assets: a command about one asset of
  /// thousands reads one entry, and skips the sweep (which looks at everything). The others
  /// are unknown to this engine: not in ``statuses()``, not refreshed.
  ///
  /// - Parameter ids: the assets to load; nil loads all.
  public func start(only ids: Set<String>?) async {
    await start(only: ids, sweeping: ids == nil)
  }

  /// Starts like ``start(only:)``; `sweeping` false skips the sweep of stale partials and
  /// unreferenced blobs, for a one-shot reader such as `assetwatch status` that should look, not
  /// tidy (the sweep reads every entry on disk again).
  ///
  /// - Parameters:
  ///   - ids: the assets to load; nil loads all.
  ///   - sweeping: whether to sweep after loading (never when only some assets are loaded).
  public func start(only ids: Set<String>?, sweeping: Bool) async {
    await start(only: ids, batchSize: nil, sweep: sweeping ? .beforeReturning : .none)
  }

  /// Starts like ``start(only:sweeping:)``, sweeping as `sweep` says: `.alongside` returns once
  /// the entries are read and sweeps while the caller goes on (its refresh's requests go out
  /// meanwhile); ``shutdown()`` waits for that sweep.
  package func start(only ids: Set<String>?, sweep: StartSweep) async {
    await start(only: ids, batchSize: nil, sweep: sweep)
  }

  /// Starts like ``start()``, reading the entries `batchSize` at a time and letting other calls
  /// onto the actor between batches: subscribers of ``events()`` receive each batch's assets as
  /// `assetChanged` events as `EngineInfo.assetsLoading` counts down, then a snapshot once
  /// everything is loaded. A dashboard of thousands of assets draws at once and fills in.
  ///
  /// Until it returns, the assets not read yet are left out of ``statuses()`` and snapshots;
  /// meanwhile call only ``events()``, ``info()`` and the reads, not commands or
  /// ``startAutoRefresh()``.
  public func startProgressively(batchSize: Int = 100) async {
    await start(only: nil, batchSize: max(1, batchSize), sweep: .beforeReturning)
  }

  /// Performs the start ``LoadCore`` plans: the entries read and decoded off the actor, a batch
  /// at a time split across the I/O threads; only the bookkeeping runs here.
  private func start(only ids: Set<String>?, batchSize: Int?, sweep: StartSweep) async {
    guard !core.lifecycle.started else { return }
    core.lifecycle.started = true
    let folder = LoadCore.Folder(
      readOnlyReason: store.readOnlyReason, adopted: store.adopted ? store.root.path : nil)
    let plan = core.startLoading(
      only: ids, batchSize: batchSize, sweep: sweep, folder: folder)
    for line in plan.notices { log(line.assetID, line.level, line.message) }
    let store = self.store
    // The journal is read alongside the first batch, and each batch as the one before it is
    // taken in here: the disk and the actor work side by side.
    let journal = Task.detached { await Self.offActor { FreshnessJournal.read(store) } }
    for (batch, reading) in BatchReads(plan.batches, read: startReading) {
      let loads = await reading.value
      let notes = await journal.value
      let rewrites = takeLoads(Array(zip(batch, loads))) {
        self.core.applyFreshness(notes[$0], to: $0)
      }
      core.loading.loaded(batch)
      await commitRewrites(rewrites)
      if plan.publishesBatches {
        publishLoaded(batch)
        await Task.yield()
      }
    }
    core.loading.finished()
    await loadStoredManifest()
    await loadRollouts()
    // Assets only the stored manifest names were read just now: their freshness too.
    let notes = await journal.value
    for id in core.order.dropFirst(plan.order.count) { core.applyFreshness(notes[id], to: id) }
    await budgetAtStart(plan.sweep)
    // Whoever subscribed before the load saw no assets: the loaded whole supersedes that.
    publish(.snapshot(snapshot()))
    noteStartFinished()
  }

  /// Sends the assets of one loaded batch to subscribers, and how many remain.
  private func publishLoaded(_ ids: [String]) {
    for id in ids { publishChange(id) }
    publish(.engineChanged(info()))
  }

  /// Stops the scheduler, cancels transfers, ends every event stream, and shuts the HTTP client
  /// down.
  public func shutdown() async {
    core.lifecycle.isShutDown = true
    tasks.scheduler?.cancel()
    tasks.scheduler = nil
    tasks.schedulerSleeper?.cancel()
    tasks.manifest?.cancel()
    for task in inFlight.values { task.cancel() }
    for task in inFlight.values { _ = await task.value }
    await tasks.manifest?.value
    tasks.budgetWait?.cancel()  // the pause between passes; a running pass finishes
    await tasks.budgetPass?.value
    await tasks.startSweep?.value
    await releaseProbations()
    await flushFreshness()
    hub.finishAll()
    try? await io.ownedHTTPFetcher?.shutdown()
  }

  /// How many assets a plain start reads per trip off the actor.
  ///
  /// The actor takes a batch in as the next one is read, so the start ends with the last
  /// batch taken in alone: a smaller batch leaves less of it. Measured on 1,000 assets (2
  /// cores, 50 interleaved runs a size, twice): an h2 revalidation 119-121 ms with 512,
  /// 116 ms with 256, 113-117 ms with 128 and 117 ms with 64; an HTTP/1.1 one 96 ms with 512
  /// and 91-92 ms with 128 or 256.
  static let loadBatchSize = 256

  /// Starts reading the assets' files (``readFromDisk(_:)``) in a task of its own, which runs
  /// as the actor does other work.
  private func startReading(_ ids: [String]) -> Task<[DiskLoad], Never> {
    let inputs = diskInputs(ids)
    let store = self.store
    return Task.detached { await Self.read(inputs, store: store) }
  }

  /// What reading each asset's files needs: its id and bundled copy.
  private func diskInputs(_ ids: [String]) -> [(id: String, bundled: BundledSource?)] {
    ids.map { (id: $0, bundled: core.records[$0]?.definition.bundled) }
  }

  /// Reads the assets' files off the actor, split across the I/O pool's threads.
  func readFromDisk(_ ids: [String]) async -> [DiskLoad] {
    await Self.read(diskInputs(ids), store: store)
  }

  /// Reads `inputs` with `store`, split across the I/O pool's threads, in their order.
  private static func read(
    _ inputs: [(id: String, bundled: BundledSource?)], store: CacheStore
  ) async -> [DiskLoad] {
    let parts = max(1, min(System.coreCount, inputs.count / 64))
    let size = (inputs.count + parts - 1) / parts
    return await withTaskGroup(of: (Int, [DiskLoad]).self) { group in
      for part in 0..<parts {
        let slice = Array(
          inputs[min(part * size, inputs.count)..<min((part + 1) * size, inputs.count)])
        group.addTask {
          let loads = await Self.offActor {
            slice.map { DiskLoad.read($0.id, bundled: $0.bundled, store: store) }
          }
          return (part, loads)
        }
      }
      var results = [[DiskLoad]](repeating: [], count: parts)
      for await (part, loads) in group { results[part] = loads }
      return results.flatMap { $0 }
    }
  }

  /// The one loop every core's actions go through (AsyncHTTPClient's
  /// `modifyStateAndRunActions`): performs `actions` in order; what performing one answers (the
  /// core's reply to the step's result) is performed next, before the rest.
  func drive<Action: Sendable>(
    _ actions: [Action], _ perform: (Action) async throws -> [Action]
  ) async rethrows {
    try await drive(actions) { action, rest in rest = try await perform(action)[...] + rest }
  }

  /// ``drive(_:_:)`` where performing an action may replace the rest (`rest`): a core that
  /// decides what follows a failure from what was still to come, or an action that ends the run.
  func drive<Action: Sendable>(
    _ actions: [Action], replacing perform: (Action, inout ArraySlice<Action>) async throws -> Void
  ) async rethrows {
    var queue = actions[...]
    while let action = queue.popFirst() {
      try await perform(action, &queue)
    }
  }

  /// Writes a batch's rewrites off the actor (two fsyncs each), then records what was written.
  func commitRewrites(_ rewrites: [LoadRewrite]) async {
    guard !rewrites.isEmpty else { return }  // no trip off the actor for nothing
    let store = self.store
    let results = await Self.offActor {
      rewrites.map { rewrite -> (CacheEntry?, BlobStamp?) in
        let written = try? store.commitEntry(rewrite.entry, over: rewrite.over)
        return (written, written == nil ? nil : store.entryStamp(rewrite.id))
      }
    }
    for written in LoadCore.written(rewrites, results) {
      core.records[written.id]?.synced = written.entry
      core.records[written.id]?.syncedStamp = written.stamp
    }
  }

  /// Takes what reading an asset's files found, as ``LoadCore/apply(_:to:record:appVersion:at:)``
  /// decides. Returns the entry to write back (``commitRewrites(_:)`` writes it off the
  /// actor).
  func apply(_ load: DiskLoad, to id: String) -> LoadRewrite? {
    guard let record = core.records[id] else { return nil }
    let applied = LoadCore.apply(
      load, to: id, record: record, appVersion: configuration.appVersion, at: clock.now())
    if let reason = applied.discarded {
      logger.warning("discarded cached copy", metadata: ["asset": "\(id)", "reason": "\(reason)"])
    }
    for line in applied.logs { log(line.assetID, line.level, line.message) }
    core.records[id] = applied.record
    return applied.rewrite
  }

  /// Writes the freshness journal when it changed, off the actor (encoding thousands of notes
  /// and the write never hold up events and commands). Returns once the newest notes are
  /// written: a write already running is waited for first, so writes land in order.
  func flushFreshness() async {
    while let running = core.freshness.writing {
      await running.value
      core.freshness.ended(running)
    }
    guard let notes = core.freshness.takeChanged() else { return }
    let store = self.store
    // An engine that read only some assets (`refresh ID`) holds only their notes: the other
    // assets' stay as the journal has them.
    let others = core.loading.only != nil
    let task = Task {
      await Self.offActor { FreshnessJournal.write(notes, to: store, keepingOthers: others) }
    }
    core.freshness.writing = task
    await task.value
    core.freshness.ended(task)
  }

  // MARK: - Reading

  /// Every asset's status, in config order (manifest-added assets last).
  public func statuses() -> [AssetStatus] {
    // Sized once: growing by doubling held two copies at the peak (5 MiB at 10,000 assets).
    var statuses: [AssetStatus] = []
    statuses.reserveCapacity(core.order.count)
    statuses.append(contentsOf: core.order.lazy.compactMap(status))
    return statuses
  }

  /// One asset's status, or nil when the id is unknown (or not read yet at start).
  public func status(_ id: String) -> AssetStatus? {
    loadedRecord(id)?.status(store: store, paused: core.lifecycle.paused)
  }

  /// The version `id` serves, as ``status(_:)`` shows it (cleaned for a terminal, at most 64
  /// characters), without building the rest of the status (a refresh of thousands replies with
  /// each one's version).
  func servedVersion(_ id: String) -> String? {
    loadedRecord(id)?.servedVersion.map(AssetStatus.displayVersion)
  }

  /// `id`'s record once its load is done (nil before that, or for an unknown id).
  private func loadedRecord(_ id: String) -> AssetRecord? {
    guard !core.loading.pending.contains(id) else { return nil }
    return core.records[id]
  }

  /// Engine-wide facts (app version, manifest version, pause).
  public func info() -> EngineInfo {
    let refreshEvery = configuration.assetDefaults.refreshSeconds
    var info = EngineInfo(
      appVersion: configuration.appVersion, configPath: configuration.configPath,
      manifestVersion: core.manifest?.manifest.version.map {
        TerminalText.sanitize($0, maxLength: 64)
      },
      autoRefreshPaused: core.lifecycle.paused,
      refreshEvery: refreshEvery)
    info.pausedAt = core.lifecycle.pausedAt
    info.cacheReadOnly = store.readOnlyReason.map { "read-only cache: \($0)" }
    info.manifestCheckedAt = core.manifest?.checkedAt ?? core.trust.checkedAt
    info.manifestError = core.manifestSchedule.error
    info.assetsLoading = core.loading.pending.isEmpty ? nil : core.loading.pending.count
    info.trust = trustSummary()  // nil without a `tuf` block (AssetEngine+Trust.swift)
    info.instance = configuration.instance
    info.cache = core.budget.usage
    return info
  }

  /// A full snapshot: what ``events()`` sends first.
  public func snapshot() -> EngineSnapshot {
    EngineSnapshot(info: info(), assets: statuses(), at: clock.now())
  }

  /// A stream of everything the engine does: a snapshot first, then changes. Each call makes an
  /// independent subscriber; a slow one never blocks the engine (it gets a new snapshot when it
  /// falls behind). The stream ends at ``shutdown()`` (one made after it, after its snapshot).
  public func events() -> AsyncStream<EngineEvent> {
    hub.subscribe(snapshot: snapshot())
  }

  /// ``events()`` as the control socket's wire lines (protocol 2: a snapshot, then batches of
  /// per-asset changes, each encoded once for every watcher; see
  /// ``EventHub/subscribeLines(snapshot:)``). Close the queue when the watcher goes.
  func eventLines() -> WatcherQueue {
    hub.subscribeLines(snapshot: snapshot())
  }

  /// The bytes served now for `id`, read on a blocking-I/O thread (a large asset never holds
  /// the engine up).
  ///
  /// - Throws: ``AssetUnavailable`` when the id is unknown, no copy exists, or the bundled file
  ///   cannot be read (or is not a regular file); a read error of the cached copy;
  ///   `CancellationError` when the calling task is cancelled before the read ran.
  public func data(_ id: String, policy: ReadPolicy = .immediate) async throws -> Data {
    let step = ReadCore.refresh(
      policy, isDue: { isDue(id) }, withinStaleWhileRevalidate: { isWithinStaleWhileRevalidate(id) }
    )
    switch step {
    case .none: break
    case .inBackground: startRefresh(id, manual: false)
    case .beforeReturning: _ = await refresh(id, manual: false)
    }
    // The bytes are read on the blocking pool: a large asset never holds the actor up.
    return try await ReadCore.source(id, record: core.records[id]).read(id, from: store)
  }

  /// Whether a read policy should refresh: not fresh now, and not inside a failure backoff (so
  /// an offline app is not made to wait for a timeout on every read).
  func isDue(_ id: String) -> Bool {
    let (store, now) = (self.store, clock.now())
    return ReadCore.isDue(core.records[id], shutDown: core.lifecycle.isShutDown, at: now) {
      $0.status(store: store, paused: false).state(at: now)
    }
  }

  /// The file holding the bytes served now (for large assets), or nil when there is none on disk.
  public func fileURL(_ id: String) -> URL? {
    (try? ReadCore.source(id, record: core.records[id]))?.fileURL(in: store)
  }

  /// The asset converted by `materializer`.
  ///
  /// - Throws: ``AssetUnavailable``, or what the materializer throws.
  public func value<T>(
    _ id: String, as materializer: Materializer<T>, policy: ReadPolicy = .immediate
  ) async throws -> T {
    try materializer.materialize(try await data(id, policy: policy))
  }

  /// A typed value inside a JSON asset, or the key's default when it cannot be read.
  public func value<T>(for key: RemoteAssetKey<T>, policy: ReadPolicy = .immediate) async -> T {
    guard let bytes = try? await data(key.assetID, policy: policy) else { return key.defaultValue }
    return key.value(in: bytes)
  }

  /// Adds a check that new bytes of `id` must pass before they are committed (after the format
  /// check). The materializer's value is discarded; throwing rejects the bytes.
  public func addValidator<T>(_ id: String, _ materializer: Materializer<T>) {
    let m = materializer.materialize
    validators[id] = { data in _ = try m(data) }
  }

  // MARK: - Events

  /// Tells subscribers `id`'s status (built only when someone listens).
  func publishChange(_ id: String) {
    hub.publish({ status(id).map(EngineEvent.assetChanged) }, resync: snapshot)
  }

  /// Tells subscribers `event` (built only when someone listens).
  func publish(_ event: @autoclosure () -> EngineEvent) {
    hub.publish(event, resync: snapshot)
  }

  func log(_ id: String?, _ level: EngineLogEntry.Level, _ message: String) {
    let clean = TerminalText.sanitize(message)
    publish(.log(EngineLogEntry(at: clock.now(), assetID: id, level: level, message: clean)))
    logger.log(
      level: level.loggerLevel, "\(clean)", metadata: EngineLogLine.metadata(assetID: id))
  }
}
