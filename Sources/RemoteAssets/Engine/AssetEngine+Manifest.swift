import Foundation

/// The manifest and the signed targets: ``ManifestCore`` and ``TrustCore`` decide, this file
/// performs their actions and feeds the results of its steps back to them.
extension AssetEngine {
  static let manifestMaxBytes: Int64 = 4 << 20

  /// Reads the last fetched manifest from disk so an offline start knows its targets.
  func loadStoredManifest() async {
    await holdUntilTrusted()  // with a `tuf` block: nothing is fetched before its target verifies
    guard configuration.manifest != nil, let data = try? store.readManifest() else { return }
    await performManifest(core.manifestSchedule.storedRead(data))
  }

  /// Fetches the manifest (conditionally: a 304 costs one round trip) and applies its targets;
  /// with a `tuf` block, refreshes the signed metadata instead (AssetEngine+Trust.swift).
  /// Failures are logged and retried with backoff; the previous targets stay in force.
  ///
  /// Concurrent callers (the scheduler, a refresh of one asset, a refresh of all) share one
  /// check: a call made while one runs waits for that one instead of starting another.
  public func refreshManifest() async {
    await performManifest(
      core.manifestSchedule.begin(
        configuration, held: core.manifest, shutDown: core.lifecycle.isShutDown, at: clock.now()))
  }

  /// Performs `actions` in order, feeding the result of each step back to its core and
  /// performing what it answers first (AsyncHTTPClient's `modifyStateAndRunActions`).
  func performManifest(_ actions: [ManifestAction]) async {
    await drive(actions) { action in
      var next: [ManifestAction] = []
      switch action {
      case .join:
        await tasks.manifest?.value
      case .check(let check):
        // The task inherits the actor's isolation, so it cannot run before it is registered.
        let task = Task {
          await self.performManifest([check])
          self.tasks.manifest = nil
        }
        tasks.manifest = task
        await task.value
        wakeScheduler()  // new targets are due now
      case .fetchManifest(let plan):
        next = await fetchManifest(plan)
      case .writeManifest(let stored):
        next = writeManifest(stored)
      case .keepManifest(let stored):
        core.manifest = stored
      case .applyManifest(let parsed):
        await apply(parsed)
      case .refreshSignedMetadata(let source):
        next = await refreshSignedMetadata(source)  // AssetEngine+Trust.swift
      case .lookUpSignedTarget(let lookup):
        next = await lookUpSignedTarget(lookup)
      case .loadVerifiedBefore:
        next = await loadVerifiedBefore()
      case .setTarget(let target):
        core.records[target.id]?.take(target)
      case .refuse(let id, let error):
        core.records[id]?.urlRefusal = error
      case .publishChange(let id):
        publishChange(id)
      case .countRefusal(let reason):
        metrics.refusedSignedMetadata(reason: reason)
      case .log(let level, let message):
        log(nil, level, message)
      case .checkEnded(let outcome):
        next = core.manifestSchedule.ended(
          outcome, refreshSeconds: configuration.assetDefaults.refreshSeconds,
          backoff: core.backoff,
          random: .random(in: 0...1))
      case .publishEngineChanged:
        publish(.engineChanged(info()))
      }
      return next
    }
  }

  /// One conditional fetch of the manifest, reported to the core.
  private func fetchManifest(_ plan: ManifestCore.FetchPlan) async -> [ManifestAction] {
    let now = clock.now()
    guard let fetcher = fetchers.first(where: { $0.canFetch(plan.url) }) else {
      return core.manifestSchedule.noFetcher(at: now)
    }
    do {
      let sink = DownloadSink(
        partial: try store.createPartial(for: "manifest"), maxBytes: Self.manifestMaxBytes,
        expectedSize: nil
      ) { _ in }
      defer { sink.discard() }
      var request = FetchRequest(
        url: plan.url, headers: configuration.manifestHeaders, etag: plan.etag,
        lastModified: plan.lastModified, maxBytes: Self.manifestMaxBytes,
        timeout: configuration.assetDefaults.timeout)
      // The manifest goes through the same TLS settings and proxy as the config's `defaults`.
      request.tls = configuration.assetDefaults.tls
      request.proxy = configuration.assetDefaults.proxy
      let response = try await fetcher.fetch(request, into: sink)
      // What the sink holds: the new manifest, or nothing after a 304.
      let body = try sink.readBody()
      return core.manifestSchedule.responded(
        response, body: body, plan: plan, held: core.manifest, writable: !store.isReadOnly,
        at: now)
    } catch {
      return core.manifestSchedule.fetchFailed(error, at: now)
    }
  }

  /// Writes the manifest to the cache folder, and reports it written or not.
  private func writeManifest(_ stored: StoredManifest) -> [ManifestAction] {
    do {
      let encoder = JSONEncoder()
      encoder.dateEncodingStrategy = .iso8601
      try store.writeManifest(try encoder.encode(stored))
      return core.manifestSchedule.written(stored, held: core.manifest)
    } catch {
      return core.manifestSchedule.fetchFailed(error, at: stored.checkedAt)
    }
  }

  /// Sets each named asset's target version, URL, size and hash; adds assets the config lacks
  /// (``ManifestCore/targets(_:assets:added:only:context:)`` decides).
  ///
  /// An added asset gets the same checks as a configured one at start (app version, blob size
  /// and hash), its files read off the actor first, in batches across the I/O threads: a
  /// manifest that adds thousands of assets, or names a large cached copy whose stamp changed
  /// (a re-hash), never holds up events and commands.
  func apply(_ manifest: Manifest) async {
    let added = ManifestCore.additions(
      manifest, known: Set(core.records.keys), only: core.loading.only)
    var loads: [DiskLoad] = []
    for start in stride(from: 0, to: added.count, by: core.loading.batchSize) {
      loads += await readFromDisk(
        Array(added[start..<min(start + core.loading.batchSize, added.count)]))
    }
    let adding = ManifestCore.stillAdded(Array(zip(added, loads)), known: Set(core.records.keys))
    // Default headers go only to the manifest's own origin (checked when the URL is set).
    core.addRecords(
      adding.map {
        configuration.assetDefaults.definition(id: $0.0, remote: configuration.manifest)
      },
      appVersion: configuration.appVersion)
    let rewrites = takeLoads(adding)
    var assets: [String: TargetedAsset] = [:]
    for target in manifest.assets {
      assets[target.id] = core.records[target.id]?.targeted(inFlight: inFlight[target.id] != nil)
    }
    await performManifest(
      ManifestCore.targets(
        manifest, assets: assets, added: Set(adding.map(\.0)), only: core.loading.only,
        context: targetContext()))
    await commitRewrites(rewrites)
  }
}
