import Foundation

extension AssetEngine {
  static let manifestMaxBytes: Int64 = 4 << 20

  /// Reads the last fetched manifest from disk so an offline start knows its targets.
  func loadStoredManifest() async {
    holdUntilTrusted()  // with a `tuf` block: nothing is fetched before its target verifies
    guard configuration.manifest != nil, let data = try? store.readManifest() else { return }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    guard let stored = try? decoder.decode(StoredManifest.self, from: data) else {
      log(nil, .warning, "the stored manifest is unreadable; waiting for a fresh one")
      return
    }
    manifest = stored
    await apply(stored.manifest)
  }

  /// Fetches the manifest (conditionally: a 304 costs one round trip) and applies its targets.
  /// Failures are logged and retried with backoff; the previous manifest stays in force.
  ///
  /// Concurrent callers (the scheduler, a refresh of one asset, a refresh of all) share one
  /// fetch: a call made while one runs waits for that one instead of starting another.
  public func refreshManifest() async {
    guard configuration.followsTargets, !lifecycle.isShutDown else { return }
    if manifestSchedule.begin() == .join {
      await manifestTask?.value
      return
    }
    // The task inherits the actor's isolation, so it cannot run before it is registered below.
    let task = Task {
      if self.configuration.tuf != nil {
        await self.refreshSignedTargets()  // signed targets instead (AssetEngine+Trust.swift)
      } else {
        await self.fetchManifest()
      }
      self.manifestTask = nil
    }
    manifestTask = task
    await task.value
    wakeScheduler()  // new targets are due now
  }

  /// One conditional fetch of the manifest; see ``refreshManifest()``.
  private func fetchManifest() async {
    let now = clock.now()
    guard let url = configuration.manifest,
      let fetcher = fetchers.first(where: { $0.canFetch(url) })
    else {
      manifestSchedule.succeeded(at: now, interval: defaultInterval)
      return
    }
    var errorChanged = false
    var targetsChanged = false
    do {
      let sink = DownloadSink(
        partial: try store.createPartial(for: "manifest"), maxBytes: Self.manifestMaxBytes,
        expectedSize: nil
      ) { _ in }
      defer { sink.discard() }
      var request = FetchRequest(
        url: url, headers: configuration.manifestHeaders, etag: manifest?.etag,
        lastModified: manifest?.lastModified,
        maxBytes: Self.manifestMaxBytes, timeout: configuration.assetDefaults.timeout)
      // The manifest goes through the same TLS settings and proxy as the config's `defaults`.
      request.tls = configuration.assetDefaults.tls
      request.proxy = configuration.assetDefaults.proxy
      switch try await fetcher.fetch(request, into: sink) {
      case .notModified:
        // Only an answer to the validators sent: with none (no manifest held), a 304 leaves
        // nothing to apply and the server is wrong.
        guard manifest != nil, request.etag != nil || request.lastModified != nil else {
          throw FetchError(
            .httpStatus, "the server answered 304 Not Modified to an unconditional request",
            status: 304)
        }
        manifest?.checkedAt = now
      case .downloaded(let metadata):
        let data = try sink.withPartial {
          try FileDigest.readAll(try $0.descriptor(), path: $0.path)
        }
        let parsed = try Manifest.parse(data)
        let stored = StoredManifest(
          etag: metadata.etag, lastModified: metadata.lastModified, checkedAt: now, manifest: parsed
        )
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        if !store.isReadOnly { try store.writeManifest(try encoder.encode(stored)) }
        let changed = manifest?.manifest != parsed
        manifest = stored
        if changed {
          await apply(parsed)
          targetsChanged = true
          log(
            nil, .info,
            "manifest \(parsed.version ?? "(no version)") with \(CountText.of(parsed.assets.count, "asset"))"
          )
        }
      }
      errorChanged = manifestSchedule.succeeded(at: now, interval: defaultInterval)
    } catch {
      let fetchError = error as? FetchError ?? FetchError(.invalid, "\(error)")
      let delay: TimeInterval
      (delay, errorChanged) = manifestSchedule.failed(
        at: now, message: fetchError.message, retryAfter: fetchError.retryAfter, backoff: backoff)
      log(
        nil, .error,
        SentenceText.joined([
          "manifest: \(fetchError.message)", "keeping the previous targets",
          "retry in \(DurationText.format(delay))",
        ]))
    }
    // A new manifest, or a failure starting or ending: what the header shows has changed. A
    // plain 304 changes nothing shown (pollers read `info().manifestCheckedAt`).
    if targetsChanged || errorChanged { publish(.engineChanged(info())) }
  }

  private var defaultInterval: TimeInterval {
    configuration.assetDefaults.refreshSeconds ?? AssetDefaults.standardRefreshSeconds
  }

  /// Sets each named asset's target version, URL, size and hash; adds assets the config lacks.
  ///
  /// An added asset gets the same checks as a configured one at start (app version, blob size
  /// and hash), its files read off the actor first, in batches across the I/O threads: a
  /// manifest that adds thousands of assets, or names a large cached copy whose stamp changed
  /// (a re-hash), never holds up events and commands.
  func apply(_ manifest: Manifest) async {
    var seen = Set<String>()
    let added = manifest.assets.map(\.id).filter { id in
      records[id] == nil && loading.only.map { $0.contains(id) } != false
        && seen.insert(id).inserted
    }
    var loads: [String: DiskLoad] = [:]
    var next = 0
    while next < added.count {
      let ids = Array(added[next..<min(next + loading.batchSize, added.count)])
      next += ids.count
      for (id, load) in zip(ids, await readFromDisk(ids)) { loads[id] = load }
    }
    // What a target leaves out falls back to the config, never to an earlier manifest: a hash
    // the publisher stopped naming must not be demanded of the next version.
    let configured = Dictionary(
      configuration.assets.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var rewrites: [LoadRewrite] = []
    for target in manifest.assets {
      if let only = loading.only, !only.contains(target.id) { continue }
      if records[target.id] == nil, let load = loads[target.id] {
        // Default headers go only to the manifest's own origin (checked when the URL is set).
        let definition = configuration.assetDefaults.definition(
          id: target.id, remote: configuration.manifest)
        records[target.id] = AssetRecord(
          definition: definition,
          entry: CacheEntry(id: target.id, appVersion: configuration.appVersion))
        order.append(target.id)
        if let rewrite = self.apply(load, to: target.id) { rewrites.append(rewrite) }
        if records[target.id]?.entry.nextAttemptAt == nil, schedulerTask != nil {
          records[target.id]?.entry.nextAttemptAt = clock.now()
        }
      }
      guard var record = records[target.id] else { continue }
      let before = record.targetFacts
      record.urlRefusal = nil
      // A staged rollout: in the cohort, the target; held back, its `from` (or what it serves).
      let choice = RolloutChoice.choose(
        TargetFacts(
          url: target.url, size: target.size, sha256: target.sha256, version: target.version),
        rollout: target.rollout, critical: target.critical ?? false,
        instance: configuration.instance ?? "", asset: target.id)
      let facts: TargetFacts
      switch choice {
      case .target(let chosen, let stage):
        (facts, record.rolloutStage, record.holdReason) = (chosen, stage, nil)
      case .from(let chosen, let stage):
        (facts, record.rolloutStage, record.holdReason) = (chosen, stage, nil)
      case .hold(let stage):
        // Nothing to go back to (``RolloutChoice/choose``): keep serving what it serves, and
        // say so.
        let held = record.entry.current
        facts = TargetFacts(
          url: nil, size: nil, sha256: held?.sha256, version: held?.version)
        (record.rolloutStage, record.holdReason) = (stage, stage.summary)
      }
      let base =
        configured[target.id]
        ?? configuration.assetDefaults.definition(id: target.id, remote: configuration.manifest)
      if let text = facts.url {
        switch resolveManifestURL(text, allowInsecure: record.definition.allowInsecure) {
        case .success(let url):
          // Tokens go only to the origin they were set up for: the config's URL, or the
          // manifest's own for an asset only the manifest names (or one with no URL).
          let origin = configured[target.id]?.remote ?? configuration.manifest
          let sameOrigin = origin.map { HTTPFetcher.sameOrigin($0, url) } ?? false
          record.definition.headers = sameOrigin ? base.headers : []
          record.definition.remote = url
          // "live" watches a local file; a URL over the network would be polled (and a failure
          // retried) ten times a second: it is checked at the default interval instead.
          record.definition.refresh = base.refresh
          if record.definition.refresh == .live, !url.isFileURL {
            record.definition.refresh = .every(defaultInterval)
          }
        case .failure(let refusal):
          // Not fetched from anywhere until a manifest names a usable URL: the last good copy
          // stays, and the refusal is the asset's error at its next check.
          record.urlRefusal = refusal
        }
      } else if record.holdReason != nil {
        // Held: nothing is fetched, whatever URL the record has.
      } else if let remote = configured[target.id]?.remote {
        // No URL named: the config's own, never one an earlier manifest or stage set.
        record.definition.remote = remote
        (record.definition.headers, record.definition.refresh) = (base.headers, base.refresh)
      } else {
        // An asset only the manifest names, and it names no URL to fetch it from.
        record.definition.remote = nil
        record.urlRefusal = FetchError(.invalidURL, "the manifest names no url for this asset")
      }
      record.definition.expectedSize = facts.size ?? base.expectedSize
      record.definition.maxBytes = max(base.maxBytes, facts.size ?? 0)
      record.definition.sha256 = facts.sha256?.lowercased() ?? base.sha256
      // The index describes the target's bytes: a held-back instance fetching `from` has none.
      record.definition.chunkIndex = nil
      if case .target = choice, let chunks = target.chunks,
        case .success(let url) = resolveManifestURL(
          chunks.url, allowInsecure: record.definition.allowInsecure)
      {
        record.definition.chunkIndex = ChunkIndexReference(
          url: url, size: chunks.size, sha256: chunks.sha256.lowercased())
      }
      if let essential = target.essential { record.definition.essential = essential }
      record.targetVersion = facts.version.map { TerminalText.sanitize($0, maxLength: 64) }
      if let sha = facts.sha256?.lowercased(), record.entry.current?.sha256 == sha,
        let version = facts.version
      {
        record.entry.current?.version = version
      }
      // A new target (URL, hash, size or version) is due now, not at the end of the interval
      // or of a backoff earned against the old one: a rollout should not wait for a timer.
      if record.targetFacts != before, schedulerTask != nil, inFlight[target.id] == nil,
        !record.autoRefreshBlocked, record.definition.remote != nil,
        record.definition.refresh != .manual
      {
        record.entry.nextAttemptAt = clock.now()
      }
      records[target.id] = record
      publishChange(target.id)
    }
    if !rewrites.isEmpty { await commitRewrites(rewrites) }
  }

  /// The manifest's `url` for an asset, resolved against the manifest's own URL and checked by
  /// the one URL policy; a refusal says why in words safe for a terminal.
  private func resolveManifestURL(_ text: String, allowInsecure: Bool) -> Result<URL, FetchError> {
    do {
      guard let base = configuration.manifest.flatMap({ try? RemoteURL($0.absoluteString) })
      else {
        throw RemoteURLPolicy.Refusal.invalid(RemoteURLError(.notAbsolute))
      }
      let url = try RemoteURL(resolving: text, against: base)
      try RemoteURLPolicy.check(url, allowInsecure: allowInsecure)
      return .success(url.url)
    } catch let error as RemoteURLError {
      return .failure(refusal(RemoteURLPolicy.Refusal.invalid(error)))
    } catch let error as RemoteURLPolicy.Refusal {
      return .failure(refusal(error))
    } catch {
      return .failure(FetchError(.invalidURL, "the manifest's URL was refused"))
    }
  }

  private func refusal(_ refusal: RemoteURLPolicy.Refusal) -> FetchError {
    FetchError(refusal.kind, "the manifest's URL for this asset was refused: \(refusal)")
  }
}
