import Foundation

extension AssetEngine {
  /// Replaces the configuration in force with `configuration` (a reload), touching only what
  /// changed (`ConfigurationDiff`):
  ///
  /// - An added asset is read from disk like one configured at start (its cached copy, if a
  ///   earlier configuration left one, is served) and scheduled.
  /// - A removed asset stops being served and refreshed; a transfer under way for it is
  ///   cancelled (its resumable bytes kept). Its cached copy stays on disk, unconfigured: the
  ///   disk budget (`cacheLimit`) may evict it like any unconfigured asset's; nothing is deleted.
  ///   An asset the held manifest still names stays, as the manifest's.
  /// - A changed asset whose URL, headers, TLS, proxy, expected size or hash, size limit, format
  ///   or target path changed has its transfer under way cancelled and is checked again at once;
  ///   one whose interval, TTL, max-stale, timeout, essential flag or bundled copy changed keeps
  ///   its transfer, and only its schedule follows the new values.
  /// - Every other asset keeps its cached copy, transfer and schedule untouched.
  ///
  /// Subscribers of ``events()`` then get a fresh snapshot (rows added and removed) and a log
  /// line saying what changed. Reloads run one at a time, in the order asked; one asked for
  /// while ``start()`` loads waits for it.
  ///
  /// - Parameter configuration: the new configuration, usually from ``ConfigurationLoader``.
  /// - Returns: what was added, removed and changed.
  /// - Throws: ``ConfigurationReloadError/needsRestart(_:)`` when a setting only a restart can
  ///   change differs (nothing is changed then); ``ConfigurationReloadError/shuttingDown`` after
  ///   ``shutdown()`` began.
  @discardableResult
  public func apply(_ configuration: EngineConfiguration) async throws(ConfigurationReloadError)
    -> ConfigurationReload
  {
    try await apply(configuration, fieldLines: [:])
  }

  /// ``apply(_:)``, naming the line of each top-level field in problems (`fieldLines`, from
  /// ``ConfigurationLoader/loadWithFieldLines(path:environment:appVersionOverride:cacheDirectoryOverride:)``).
  ///
  /// - Throws: what ``apply(_:)`` throws.
  package func apply(_ configuration: EngineConfiguration, fieldLines: [String: Int])
    async throws(ConfigurationReloadError) -> ConfigurationReload
  {
    let previous = tasks.reload
    // Inherits the actor's isolation; runs after the previous reload has finished.
    let task = Task { () -> Result<ConfigurationReload, ConfigurationReloadError> in
      _ = await previous?.value
      do throws(ConfigurationReloadError) {
        return .success(try await self.applyNow(configuration, fieldLines: fieldLines))
      } catch {
        return .failure(error)
      }
    }
    tasks.reload = task
    return try await task.value.get()
  }

  /// Called once ``start()`` has loaded everything: reloads waiting for it go on.
  func noteStartFinished() {
    core.reload.startFinished = true
    let waiters = tasks.reloadStartWaiters
    tasks.reloadStartWaiters = []
    for waiter in waiters { waiter.resume() }
  }

  private func waitForStart() async {
    guard core.reload.waitsForStart(started: core.lifecycle.started) else { return }
    await withCheckedContinuation { tasks.reloadStartWaiters.append($0) }
  }

  private func applyNow(_ incoming: EngineConfiguration, fieldLines: [String: Int])
    async throws(ConfigurationReloadError) -> ConfigurationReload
  {
    try ReloadCore.admit(shutDown: core.lifecycle.isShutDown)
    await waitForStart()
    let accepted = try ReloadCore.accept(
      incoming, over: configuration, fieldLines: fieldLines, shutDown: core.lifecycle.isShutDown)
    guard core.lifecycle.started else {
      // Nothing loaded yet: the start will load the new assets.
      configurationCell.replace(with: accepted.configuration)
      core.replaceRecords(with: accepted.configuration)
      return accepted.result
    }
    configurationCell.replace(with: accepted.configuration)
    await applyStarted(accepted.diff, configuration: accepted.configuration)
    log(nil, .info, "configuration reloaded: \(accepted.diff.summary)")
    return accepted.result
  }

  /// Performs what ``ReloadCore`` plans for a reload after the start.
  private func applyStarted(_ diff: ConfigurationDiff, configuration new: EngineConfiguration)
    async
  {
    let plan = ReloadCore.plan(
      diff, new: new, heldManifest: core.manifest?.manifest,
      definition: { self.core.records[$0]?.definition }, loaded: core.loading.only)
    for id in plan.remove { await remove(id) }
    for update in plan.definitions { core.records[update.id]?.definition = update.definition }
    for id in plan.rereadBundled { await rereadBundled(id) }
    await add(plan.add)
    if let heldManifest = plan.manifest {
      await apply(heldManifest)  // its targets over the new definitions, as at a start
    }
    let now = clock.now()
    let settled = ReloadCore.settle(
      plan, diff: diff, new: new, definition: { self.core.records[$0]?.definition })
    for id in settled.restart { await restartTransfer(id, now: now) }
    for id in settled.reschedule { reschedule(id, now: now) }
    for id in settled.untrusted {
      core.records[id]?.urlRefusal = FetchError(
        .untrusted, "not fetched: no signed TUF target has been verified for it yet")
    }
    if settled.refreshManifest { Task { await self.refreshManifest() } }
    core.order = ReloadCore.order(
      configured: new.assets.map(\.id), previous: core.order, has: { self.core.records[$0] != nil })
    if diff.cacheLimitChanged { budgetAfterCommit() }
    wakeScheduler()
    // The whole table anew: watchers drop the removed rows and add the new ones.
    publish(.snapshot(snapshot()))
  }

  /// Stops serving and refreshing `id`; its files stay on disk.
  private func remove(_ id: String) async {
    await cancelTransfer(id)
    core.removeRecord(id)
  }

  /// A transfer under way for `id` is cancelled, and its result (due to the old definition)
  /// dropped.
  private func cancelTransfer(_ id: String) async {
    core.records[id]?.epoch &+= 1
    await cancelInFlight(id)
  }

  /// Reads the assets' files like a start does, adds their records, and schedules them.
  private func add(_ definitions: [AssetDefinition]) async {
    guard !definitions.isEmpty else { return }
    core.addRecords(definitions, appVersion: configuration.appVersion)
    let ids = definitions.map(\.id)
    let loads = await readFromDisk(ids)
    let now = clock.now()
    let scheduling = tasks.scheduler != nil
    let rewrites = takeLoads(Array(zip(ids, loads))) { id in
      self.core.scheduleFirstCheck(id, scheduling: scheduling, now: now)
    }
    await commitRewrites(rewrites)
  }

  /// Takes each added asset's disk load into its record (``apply(_:to:)``), then `settle`s
  /// it; returns the entries to write back (``commitRewrites(_:)``). For the assets a start
  /// reads, and those a reload or a manifest adds.
  func takeLoads(_ loads: [(String, DiskLoad)], settle: (String) -> Void = { _ in })
    -> [LoadRewrite]
  {
    loads.compactMap { id, load in
      defer { settle(id) }
      return apply(load, to: id)
    }
  }

  /// The bundled copy changed: its digest (what the status compares) is read again.
  private func rereadBundled(_ id: String) async {
    let bundled = core.records[id]?.definition.bundled
    let digest = await Self.offActor { DiskLoad.bundledDigest(bundled) }  // the entry is not read
    core.bundledRead(id, of: bundled, digest: digest)
  }

  /// What `id` fetches changed: a transfer under way for the old definition is cancelled (its
  /// bytes would be checked against the old expectations), and the asset is due now.
  private func restartTransfer(_ id: String, now: Date) async {
    await cancelTransfer(id)
    if core.scheduleAfterTransferChange(id, scheduling: tasks.scheduler != nil, now: now) {
      publishChange(id)
    }
  }

  /// Only `id`'s schedule changed: its next check follows the new interval from its last check
  /// (a backoff after failures stands). A transfer under way goes on; once it ends, the next
  /// check it set is recomputed the same way.
  private func reschedule(_ id: String, now: Date) {
    if let task = inFlight[id] {
      Task {
        _ = await task.value
        self.reschedule(id, now: self.clock.now())
      }
      return
    }
    if core.reschedule(id, scheduling: tasks.scheduler != nil, now: now) { publishChange(id) }
  }
}
