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
/// released while running.
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
  let backoff: Backoff

  var records = RecordTable()
  var order: [String] = []
  var inFlight: [String: Task<RefreshOutcome, Never>] = [:]
  var validators: [String: @Sendable (Data) throws -> Void] = [:]
  var lifecycle = EngineLifecycle()
  var manifest: StoredManifest?
  /// The manifest's single flight and backoff (decides; ``refreshManifest()`` performs).
  var manifestSchedule = ManifestCore()
  /// The manifest fetch under way, which callers that join wait for.
  var manifestTask: Task<Void, Never>?
  /// The TUF client's state, with a `tuf` block (see AssetEngine+Trust.swift).
  var trust = TrustState()
  var schedulerTask: Task<Void, Never>?
  /// The scheduler's current sleep; cancelling it wakes the scheduler.
  var schedulerSleeper: Task<Void, Never>?
  /// What the scheduler does when (decides; ``tick()`` performs).
  var scheduler = SchedulerState()
  /// What is on probation and rejected (decides; AssetEngine+Probation.swift performs).
  var probations = ProbationCore()
  /// Freshness from 304s not yet written durably.
  var freshness = FreshnessBuffer()
  /// Which assets the start loads, and which it has not read yet.
  var loading = LoadScope()
  /// What the look for other processes' changes knows.
  var external = ExternalChanges()
  /// The cache's measured size, and the passes of the disk budget (AssetEngine+Budget.swift).
  var budget = CacheBudgetState()
  /// Configuration reloads: one at a time, after the start (AssetEngine+Reload.swift).
  var reload = ReloadState()

  nonisolated var store: CacheStore { io.store }
  nonisolated var committer: EntryCommitter { io.committer }
  nonisolated var fetchers: [any AssetFetcher] { io.fetchers }
  nonisolated var limiter: TransferLimiter { io.limiter }
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
      limiter: TransferLimiter(limit: configuration.maxConcurrentTransfers), hub: EventHub(),
      metrics: EngineMetrics(factory: metricsFactory ?? MetricsSystem.factory))
    self.clock = clock
    self.logger = logger
    self.backoff = backoff
    // A record is about 2 KB inline: one allocation for all of them (see ``RecordTable``).
    records.reserveCapacity(configuration.assets.count)
    order.reserveCapacity(configuration.assets.count)
    for definition in configuration.assets {
      order.append(definition.id)
      records[definition.id] = AssetRecord(
        definition: definition,
        entry: CacheEntry(id: definition.id, appVersion: configuration.appVersion))
    }
    loading.pending = Set(order)
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
    await start(only: ids, batchSize: nil, sweeping: sweeping)
  }

  /// Starts like ``start()``, reading the entries `batchSize` at a time and letting other calls
  /// onto the actor between batches: subscribers of ``events()`` receive each batch's assets as
  /// `assetChanged` events while ``EngineInfo/assetsLoading`` counts down, then a snapshot once
  /// everything is loaded. A dashboard of thousands of assets draws at once and fills in.
  ///
  /// Until it returns, the assets not read yet are left out of ``statuses()`` and snapshots;
  /// meanwhile call only ``events()``, ``info()`` and the reads, not commands or
  /// ``startAutoRefresh()``.
  public func startProgressively(batchSize: Int = 100) async {
    await start(only: nil, batchSize: max(1, batchSize), sweeping: true)
  }

  private func start(only ids: Set<String>?, batchSize: Int?, sweeping: Bool) async {
    guard !lifecycle.started else { return }
    lifecycle.started = true
    if let ids {
      loading.only = ids
      order = order.filter(ids.contains)
      records.keep(only: ids)
      loading.pending.formIntersection(ids)
    }
    if let reason = store.readOnlyReason {
      log(nil, .warning, "read-only cache (\(reason)); serving intact copies, nothing is saved")
    }
    if store.adopted {
      log(nil, .info, "adopted the cache folder \(store.root.path) (marker written)")
    }
    let store = self.store
    let notes = await Self.offActor { FreshnessJournal.read(store) }
    let configured = order
    // Files are read and decoded off the actor, a batch at a time split across the I/O
    // threads; only the bookkeeping runs here.
    if let batchSize { loading.batchSize = batchSize }
    let chunk = loading.batchSize
    var next = 0
    while next < configured.count {
      let ids = Array(configured[next..<min(next + chunk, configured.count)])
      next += ids.count
      let loads = await readFromDisk(ids)
      var rewrites: [LoadRewrite] = []
      for (id, load) in zip(ids, loads) {
        if let rewrite = apply(load, to: id) { rewrites.append(rewrite) }
        applyFreshness(notes[id], to: id)
        loading.pending.remove(id)
      }
      if !rewrites.isEmpty { await commitRewrites(rewrites) }
      if batchSize != nil {
        publishLoaded(ids)
        await Task.yield()
      }
    }
    loading.pending.removeAll()
    await loadStoredManifest()
    await loadRollouts()
    // Assets only the stored manifest names were read just now: their freshness too.
    for id in order.dropFirst(configured.count) { applyFreshness(notes[id], to: id) }
    if ids == nil, sweeping {
      await sweep()
    } else {
      await measureCache()
    }
    // Whoever subscribed before the load saw no assets: the loaded whole supersedes that.
    if hub.hasSubscribers { hub.publish(.snapshot(snapshot())) }
    noteStartFinished()
  }

  /// Sends the assets of one loaded batch to subscribers, and how many remain.
  private func publishLoaded(_ ids: [String]) {
    guard hub.hasSubscribers else { return }
    for id in ids { publishChange(id) }
    publish(.engineChanged(info()))
  }

  /// Stops the scheduler, cancels transfers, ends every event stream, and shuts the HTTP client
  /// down.
  public func shutdown() async {
    lifecycle.isShutDown = true
    schedulerTask?.cancel()
    schedulerTask = nil
    schedulerSleeper?.cancel()
    manifestTask?.cancel()
    for task in inFlight.values { task.cancel() }
    for task in inFlight.values { _ = await task.value }
    await manifestTask?.value
    budget.wait?.cancel()  // the pause between passes; a running pass finishes
    await budget.pass?.value
    await releaseProbations()
    await flushFreshness()
    hub.finishAll()
    try? await io.ownedHTTPFetcher?.shutdown()
  }

  /// How many assets a plain start reads per trip off the actor.
  static let loadBatchSize = 512

  /// Reads the assets' files off the actor, split across the I/O pool's threads.
  func readFromDisk(_ ids: [String]) async -> [DiskLoad] {
    let inputs = ids.map { (id: $0, bundled: records[$0]?.definition.bundled) }
    let store = self.store
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

  /// An entry a start writes anew (another app version's, or one whose copy failed its
  /// check), over the entry it read: if another process replaced that meanwhile (a process of
  /// the new version committed a copy), its entry stays and is picked up as an outside change.
  struct LoadRewrite: Sendable {
    var id: String
    var entry: CacheEntry
    var over: CacheEntry?
  }

  /// Writes a batch's rewrites off the actor (two fsyncs each), then records what was written.
  func commitRewrites(_ rewrites: [LoadRewrite]) async {
    let store = self.store
    let results = await Self.offActor {
      rewrites.map { rewrite -> (CacheEntry?, BlobStamp?) in
        let written = (try? store.commitEntry(rewrite.entry, over: rewrite.over)) ?? nil
        return (written, written == nil ? nil : store.entryStamp(rewrite.id))
      }
    }
    for (rewrite, (written, stamp)) in zip(rewrites, results) {
      guard let written else { continue }
      records[rewrite.id]?.synced = written
      records[rewrite.id]?.syncedStamp = stamp
    }
  }

  /// Takes what reading an asset's files found: the entry, unless it belongs to another app
  /// version (then the bundled copy) or its blob failed the check (then the bundled copy, and
  /// the reason recorded). Returns the entry to write back, if any (``commitRewrites(_:)``
  /// writes it off the actor).
  func apply(_ load: DiskLoad, to id: String) -> LoadRewrite? {
    guard var record = records[id] else { return nil }
    let now = clock.now()
    record.bundledDigest = load.bundledDigest
    let fresh = CacheEntry(id: id, appVersion: configuration.appVersion)
    var reason: String?
    var rewrite: LoadRewrite?
    switch load.entry {
    case .success(let disk):
      record.synced = disk
      if let entry = disk {
        if entry.appVersion != configuration.appVersion {
          log(
            id, .info,
            "app version changed from \(entry.appVersion) to \(configuration.appVersion); using the bundled copy"
          )
          record.entry = fresh
          rewrite = LoadRewrite(id: id, entry: fresh, over: entry)
        } else {
          record.entry = entry
          if let problem = load.blobProblem {
            reason = problem
            record.entry.current = nil
            record.entry.checkedAt = nil
          }
        }
      }
    case .failure(let error):
      reason = "\(error)"
      record.entry = fresh
    }
    if let reason {
      let fallback = record.definition.bundled != nil ? "using the bundled copy" : "no copy left"
      record.entry.lastError = AssetErrorRecord(
        kind: .corrupt, message: SentenceText.joined([reason, fallback]), at: now)
      record.discardedAtLoad = SentenceText.joined([reason, fallback])
      logger.warning("discarded cached copy", metadata: ["asset": "\(id)", "reason": "\(reason)"])
      log(id, .warning, SentenceText.joined([reason, fallback]))
      // Over the damaged entry only: another process may have committed a new copy since.
      let damaged = load.blobProblem == nil ? nil : record.synced
      rewrite = LoadRewrite(id: id, entry: record.entry, over: damaged)
    }
    record.syncedStamp = load.stamp
    records[id] = record
    return rewrite
  }

  /// Folds in freshness that a 304 recorded in the journal after the entry was last written.
  func applyFreshness(_ note: CacheEntry?, to id: String) {
    guard let note, let entry = records[id]?.entry, entry.current != nil else { return }
    records[id]?.entry = FreshnessJournal.merge(disk: entry, note: note)
    freshness.notes[id] = note
  }

  /// Records a 304's freshness in memory, for the journal (no durable write).
  func noteFreshness(_ id: String) {
    guard let entry = records[id]?.entry else { return }
    freshness.notes[id] = entry
    freshness.isDirty = true
  }

  /// Writes the freshness journal when it changed, off the actor (encoding thousands of notes
  /// and the write never hold up events and commands). Returns once the newest notes are
  /// written: a write already running is waited for first, so writes land in order.
  func flushFreshness() async {
    while let running = freshness.writing {
      await running.value
      if freshness.writing == running { freshness.writing = nil }
    }
    guard freshness.isDirty else { return }
    freshness.isDirty = false
    let (notes, store) = (freshness.notes, self.store)
    let task = Task { await Self.offActor { FreshnessJournal.write(notes, to: store) } }
    freshness.writing = task
    await task.value
    if freshness.writing == task { freshness.writing = nil }
  }

  // MARK: - Reading

  /// Every asset's status, in config order (manifest-added assets last).
  public func statuses() -> [AssetStatus] {
    // Sized once: growing by doubling held two copies at the peak (5 MiB at 10,000 assets).
    var statuses: [AssetStatus] = []
    statuses.reserveCapacity(order.count)
    for id in order {
      if let status = status(id) { statuses.append(status) }
    }
    return statuses
  }

  /// One asset's status, or nil when the id is unknown (or not read yet at start).
  public func status(_ id: String) -> AssetStatus? {
    guard !loading.pending.contains(id) else { return nil }
    return records[id]?.status(store: store, paused: lifecycle.paused)
  }

  /// Engine-wide facts (app version, manifest version, pause).
  public func info() -> EngineInfo {
    let refreshEvery = configuration.assetDefaults.refreshSeconds
    var info = EngineInfo(
      appVersion: configuration.appVersion, configPath: configuration.configPath,
      manifestVersion: manifest?.manifest.version.map { TerminalText.sanitize($0, maxLength: 64) },
      autoRefreshPaused: lifecycle.paused,
      refreshEvery: refreshEvery)
    info.pausedAt = lifecycle.pausedAt
    info.cacheReadOnly = store.readOnlyReason.map { "read-only cache: \($0)" }
    info.manifestCheckedAt = manifest?.checkedAt ?? trust.checkedAt
    info.manifestError = manifestSchedule.error
    info.assetsLoading = loading.pending.isEmpty ? nil : loading.pending.count
    info.trust = trustSummary()  // nil without a `tuf` block (AssetEngine+Trust.swift)
    info.instance = configuration.instance
    info.cache = budget.usage
    return info
  }

  /// A full snapshot: what ``events()`` sends first.
  public func snapshot() -> EngineSnapshot {
    EngineSnapshot(info: info(), assets: statuses(), at: clock.now())
  }

  /// A stream of everything the engine does: a snapshot first, then changes. Each call makes an
  /// independent subscriber; a slow one never blocks the engine (it gets a new snapshot when it
  /// falls behind). The stream ends at ``shutdown()``.
  public func events() -> AsyncStream<EngineEvent> {
    let stream = hub.subscribe(snapshot: snapshot())
    if lifecycle.isShutDown { hub.finishAll() }
    return stream
  }

  /// ``events()`` as the control socket's wire lines (protocol 2: a snapshot, then batches of
  /// per-asset changes, each encoded once for every watcher; see
  /// ``EventHub/subscribeLines(snapshot:)``). Close the queue when the watcher goes.
  func eventLines() -> WatcherQueue {
    let queue = hub.subscribeLines(snapshot: snapshot())
    if lifecycle.isShutDown { hub.finishAll() }
    return queue
  }

  /// The bytes served now for `id`, read on a blocking-I/O thread (a large asset never holds
  /// the engine up).
  ///
  /// - Throws: ``AssetUnavailable`` when the id is unknown, no copy exists, or the bundled file
  ///   cannot be read (or is not a regular file); a read error of the cached copy;
  ///   `CancellationError` when the calling task is cancelled before the read ran.
  public func data(_ id: String, policy: ReadPolicy = .immediate) async throws -> Data {
    switch policy {
    case .immediate: break
    case .refreshBeforeReturning:
      // Inside the server's stale-while-revalidate window the stale copy is returned at once.
      if isDue(id), isWithinStaleWhileRevalidate(id) {
        startRefresh(id, manual: false)
      } else if isDue(id) {
        _ = await refresh(id, manual: false)
      }
    case .immediateWithBackgroundRefresh:
      if isDue(id) { startRefresh(id, manual: false) }
    }
    guard let record = records[id] else { throw AssetUnavailable(id: id, reason: "no such asset") }
    // The bytes are read on the blocking pool: a large asset never holds the actor up.
    if let current = record.entry.current {
      let (store, sha) = (self.store, current.sha256)
      return try await IOExecutor.run { try store.readBlob(sha) }
    }
    switch record.definition.bundled {
    case .file(let url):
      // Never blocks on a FIFO or a device put where the bundled file was.
      let read = try await IOExecutor.run {
        ConfigurationLoader.readRegularFile(url.path, maxBytes: .max)
      }
      switch read {
      case .success(let data): return data
      case .failure(let failure):
        throw AssetUnavailable(id: id, reason: "the bundled copy \(url.path): \(failure.reason)")
      }
    case .bytes(let data): return data
    case nil: throw AssetUnavailable(id: id, reason: "no cached or bundled copy")
    }
  }

  /// Whether a read policy should refresh: not fresh now, and not inside a failure backoff (so
  /// an offline app is not made to wait for a timeout on every read).
  func isDue(_ id: String) -> Bool {
    guard let record = records[id], !lifecycle.isShutDown, record.definition.remote != nil else {
      return false
    }
    let now = clock.now()
    if record.entry.consecutiveFailures > 0, let next = record.entry.nextAttemptAt, next > now {
      return false
    }
    return record.status(store: store, paused: false).state(at: now) != .fresh
  }

  /// The file holding the bytes served now (for large assets), or nil when there is none on disk.
  public func fileURL(_ id: String) -> URL? {
    guard let record = records[id] else { return nil }
    if let current = record.entry.current { return store.objectURL(current.sha256) }
    if case .file(let url) = record.definition.bundled { return url }
    return nil
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

  func publishChange(_ id: String) {
    // Building a status costs more than the rest of a 304: only for someone listening.
    guard hub.hasSubscribers, let status = status(id) else { return }
    publish(.assetChanged(status))
  }

  func publish(_ event: EngineEvent) {
    if hub.publish(event) { hub.resync(snapshot()) }
  }

  func log(_ id: String?, _ level: EngineLogEntry.Level, _ message: String) {
    let clean = TerminalText.sanitize(message)
    publish(.log(EngineLogEntry(at: clock.now(), assetID: id, level: level, message: clean)))
    var metadata: Logger.Metadata = [:]
    if let id { metadata["asset"] = "\(id)" }
    switch level {
    case .info: logger.info("\(clean)", metadata: metadata)
    case .warning: logger.warning("\(clean)", metadata: metadata)
    case .error: logger.error("\(clean)", metadata: metadata)
    }
  }
}
