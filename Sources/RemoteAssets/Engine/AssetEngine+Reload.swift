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
    let previous = reload.last
    // Inherits the actor's isolation; runs after the previous reload has finished.
    let task = Task { () -> Result<ConfigurationReload, ConfigurationReloadError> in
      _ = await previous?.value
      return await self.applyNow(configuration, fieldLines: fieldLines)
    }
    reload.last = task
    return try await task.value.get()
  }

  /// Called once ``start()`` has loaded everything: reloads waiting for it go on.
  func noteStartFinished() {
    reload.startFinished = true
    let waiters = reload.startWaiters
    reload.startWaiters = []
    for waiter in waiters { waiter.resume() }
  }

  private func waitForStart() async {
    guard lifecycle.started, !reload.startFinished else { return }
    await withCheckedContinuation { reload.startWaiters.append($0) }
  }

  private func applyNow(_ incoming: EngineConfiguration, fieldLines: [String: Int]) async
    -> Result<ConfigurationReload, ConfigurationReloadError>
  {
    guard !lifecycle.isShutDown else { return .failure(.shuttingDown) }
    await waitForStart()
    guard !lifecycle.isShutDown else { return .failure(.shuttingDown) }
    let old = configuration
    let diff = ConfigurationDiff(from: old, to: incoming)
    guard diff.restartOnly.isEmpty else {
      let file = incoming.configPath ?? old.configPath ?? "the configuration"
      let problems = diff.restartOnly.map { field in
        ConfigProblem(
          path: field, line: fieldLines[field],
          message:
            "changes only at a restart; the configuration in force stays (restart to apply it)")
      }
      return .failure(.needsRestart(ConfigurationError(file: file, problems: problems)))
    }
    var new = incoming
    new.instance = old.instance  // resolved at init (config, environment or cache folder)
    new.lockTimeout = old.lockTimeout
    let result = ConfigurationReload(
      added: diff.added.map(\.id), removed: diff.removed, changed: diff.changed.map(\.id),
      summary: diff.summary)
    guard lifecycle.started else {
      // Nothing loaded yet: the start will load the new assets.
      replaceUnstarted(with: new)
      return .success(result)
    }
    configurationCell.replace(with: new)
    await applyStarted(diff, configuration: new)
    log(nil, .info, "configuration reloaded: \(diff.summary)")
    return .success(result)
  }

  /// Before ``start()``: the records are rebuilt from the new configuration, as at init.
  private func replaceUnstarted(with new: EngineConfiguration) {
    configurationCell.replace(with: new)
    records = RecordTable()
    order = []
    for definition in new.assets {
      order.append(definition.id)
      records[definition.id] = AssetRecord(
        definition: definition, entry: CacheEntry(id: definition.id, appVersion: new.appVersion))
    }
    loading.pending = Set(order)
  }

  private func applyStarted(_ diff: ConfigurationDiff, configuration new: EngineConfiguration)
    async
  {
    let heldManifest = new.manifest == nil ? nil : manifest?.manifest
    let manifestNames = Set(heldManifest?.assets.map(\.id) ?? [])
    var changes = diff.changed
    // A removed asset the held manifest still names becomes the manifest's (as at a start).
    for id in diff.removed where manifestNames.contains(id) {
      guard let before = records[id]?.definition else { continue }
      let definition = new.assetDefaults.definition(id: id, remote: new.manifest)
      changes.append(ConfigurationDiff.Change(id: id, old: before, new: definition))
    }
    for id in diff.removed where !manifestNames.contains(id) {
      await remove(id)
    }
    // What each changed asset fetches now, to tell afterwards whether its transfer still fits.
    var before: [String: AssetDefinition] = [:]
    for change in changes {
      guard var record = records[change.id] else { continue }
      before[change.id] = record.definition
      if change.changesTransfer {
        record.definition = change.new
      } else {
        // Only the schedule's and serving's fields: what a manifest or signed target set
        // (URL, size, hash, chunk index) stays.
        record.definition.refresh = change.new.refresh
        record.definition.ttl = change.new.ttl
        record.definition.maxStale = change.new.maxStale
        record.definition.timeout = change.new.timeout
        record.definition.essential = change.new.essential
        record.definition.bundled = change.new.bundled
      }
      records[change.id] = record
      if change.changesBundled { await rereadBundled(change.id) }
    }
    let added = diff.added.filter {
      records[$0.id] == nil && loading.only?.contains($0.id) != false
    }
    await add(added)
    if let heldManifest, !(changes.isEmpty && added.isEmpty) {
      await apply(heldManifest)  // its targets over the new definitions, as at a start
    }
    let now = clock.now()
    for change in changes {
      guard let old = before[change.id], let record = records[change.id] else { continue }
      let transfer = ConfigurationDiff.Change(id: change.id, old: old, new: record.definition)
      if transfer.changesTransfer {
        await restartTransfer(change.id, now: now)
      } else {
        reschedule(change.id, now: now)
      }
    }
    if new.tuf != nil, !(added.isEmpty && changes.allSatisfy { !$0.changesTransfer }) {
      // New or moved targets are fetched only once a refresh has verified them.
      for id in added.map(\.id) + changes.filter(\.changesTransfer).map(\.id) {
        guard let definition = records[id]?.definition, followsSignedTargets(definition) else {
          continue
        }
        records[id]?.urlRefusal = FetchError(
          .untrusted, "not fetched: no signed TUF target has been verified for it yet")
      }
      Task { await self.refreshManifest() }
    }
    let configured = new.assets.map(\.id)
    let configuredSet = Set(configured)
    order =
      configured.filter { records[$0] != nil }
      + order.filter { !configuredSet.contains($0) && records[$0] != nil }
    if diff.cacheLimitChanged { budgetAfterCommit() }
    wakeScheduler()
    // The whole table anew: watchers drop the removed rows and add the new ones.
    publish(.snapshot(snapshot()))
  }

  /// Stops serving and refreshing `id`; its files stay on disk.
  private func remove(_ id: String) async {
    guard records[id] != nil else { return }
    records[id]?.epoch &+= 1
    if let task = inFlight[id] {
      task.cancel()
      _ = await task.value
    }
    records[id] = nil
    order.removeAll { $0 == id }
    freshness.notes[id] = nil
  }

  /// Reads the assets' files like a start does, adds their records, and schedules them.
  private func add(_ definitions: [AssetDefinition]) async {
    guard !definitions.isEmpty else { return }
    let configuration = self.configuration
    for definition in definitions {
      records[definition.id] = AssetRecord(
        definition: definition,
        entry: CacheEntry(id: definition.id, appVersion: configuration.appVersion))
      order.append(definition.id)
    }
    let ids = definitions.map(\.id)
    let loads = await readFromDisk(ids)
    var rewrites: [LoadRewrite] = []
    let now = clock.now()
    for (id, load) in zip(ids, loads) {
      guard records[id] != nil else { continue }
      if let rewrite = apply(load, to: id) { rewrites.append(rewrite) }
      guard schedulerTask != nil, let record = records[id], record.entry.nextAttemptAt == nil
      else { continue }
      records[id]?.entry.nextAttemptAt = nextScheduledCheck(
        record.definition, after: record.entry.checkedAt ?? .distantPast
      ).map { max($0, now) }
    }
    if !rewrites.isEmpty { await commitRewrites(rewrites) }
  }

  /// The bundled copy changed: its digest (what the status compares) is read again.
  private func rereadBundled(_ id: String) async {
    guard let bundled = records[id]?.definition.bundled else {
      records[id]?.bundledDigest = nil
      return
    }
    let store = self.store
    let load = await Self.offActor { DiskLoad.read(id, bundled: bundled, store: store) }
    if records[id]?.definition.bundled == bundled {
      records[id]?.bundledDigest = load.bundledDigest
    }
  }

  /// What `id` fetches changed: a transfer under way for the old definition is cancelled (its
  /// bytes would be checked against the old expectations), and the asset is due now.
  private func restartTransfer(_ id: String, now: Date) async {
    records[id]?.epoch &+= 1
    if let task = inFlight[id] {
      task.cancel()
      _ = await task.value
    }
    guard let record = records[id] else { return }
    if schedulerTask != nil, record.definition.remote != nil, record.definition.refresh != .manual,
      !record.autoRefreshBlocked
    {
      records[id]?.entry.nextAttemptAt = now
    } else {
      records[id]?.entry.nextAttemptAt = nextScheduledCheck(record.definition, after: now)
    }
    publishChange(id)
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
    guard schedulerTask != nil, let record = records[id], record.entry.consecutiveFailures == 0
    else { return }
    let last = record.entry.checkedAt ?? .distantPast
    records[id]?.entry.nextAttemptAt = nextScheduledCheck(record.definition, after: last).map {
      max($0, now)
    }
    publishChange(id)
  }
}
