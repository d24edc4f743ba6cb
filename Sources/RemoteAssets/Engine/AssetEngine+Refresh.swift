import Foundation

extension AssetEngine {
  /// Refreshes one asset now: first the manifest (a conditional request, so an unchanged one
  /// costs one round trip), so the asset is fetched from the manifest's URL and checked against
  /// its size and hash; then the asset, conditionally. New bytes are validated and committed, or
  /// the last good copy stays and the reason is recorded.
  ///
  /// Concurrent calls for the same asset share one fetch: the later callers wait for it and get
  /// ``RefreshOutcome/inFlight``. Concurrent calls share one manifest fetch too.
  public func refresh(_ id: String) async -> RefreshOutcome {
    guard !lifecycle.isShutDown else {
      return .failed(FetchError(.shutDown, "the engine is shut down"))
    }
    await refreshManifest()
    return await refresh(id, manual: true)
  }

  /// Refreshes every asset (and the manifest first), at most `maxConcurrentTransfers` at once.
  ///
  /// - Returns: each asset's outcome, in config order.
  public func refreshAll() async -> [(id: String, outcome: RefreshOutcome)] {
    await refreshManifest()
    let ids = order
    return await withTaskGroup(of: (Int, RefreshOutcome).self) { group in
      for (index, id) in ids.enumerated() {
        group.addTask { (index, await self.refresh(id, manual: true)) }
      }
      var results = [RefreshOutcome?](repeating: nil, count: ids.count)
      for await (index, outcome) in group { results[index] = outcome }
      return zip(ids, results).map { ($0, $1 ?? .inFlight) }
    }
  }

  func refresh(_ id: String, manual: Bool) async -> RefreshOutcome {
    guard records[id] != nil else {
      return .failed(FetchError(.unknownAsset, "no asset named \(id)"))
    }
    guard !lifecycle.isShutDown else {
      return .failed(FetchError(.shutDown, "the engine is shut down"))
    }
    let (task, joined) = startRefresh(id, manual: manual)
    let outcome = await task.value
    return joined ? .inFlight : outcome
  }

  /// Starts a refresh, or returns the one already running (single flight).
  @discardableResult
  func startRefresh(_ id: String, manual: Bool) -> (task: Task<RefreshOutcome, Never>, joined: Bool)
  {
    if let running = inFlight[id] { return (running, true) }
    // The task inherits the actor's isolation, so it cannot run before it is registered below.
    let task = Task {
      let outcome = await self.performRefresh(id, manual: manual)
      self.inFlight[id] = nil
      self.wakeScheduler()  // its next check may be sooner than the scheduler's sleep
      return outcome
    }
    inFlight[id] = task
    return (task, false)
  }

  private func performRefresh(_ id: String, manual: Bool) async -> RefreshOutcome {
    let essential = records[id]?.definition.essential ?? false
    await limiter.acquire(essential: essential)
    defer { Task { await limiter.release(essential: essential) } }
    // Read after the wait: the manifest may have changed the URL, size or hash meanwhile.
    guard let definition = records[id]?.definition, let epoch = records[id]?.epoch else {
      return .notModified
    }
    records[id]?.attemptStartedAt = ContinuousClock.now
    guard let record = records[id] else { return .notModified }
    let fetchers = self.fetchers
    let remote: URL
    let conditional: AssetRefreshLifecycle.Validators
    let quiet: Bool
    switch AssetRefreshLifecycle.start(
      record, manual: manual, canFetch: { url in fetchers.contains { $0.canFetch(url) } })
    {
    case .fail(let error):
      return await finishFailure(id, error, quiet: false)
    case .hold(let why):
      return finishHeld(id, why)
    case .fetch(let url, let validators, let isQuiet):
      (remote, conditional, quiet) = (url, validators, isQuiet)
    }
    // The record holds the last rejection (`reasonToHold`); earlier ones still stand too.
    if let sha = definition.sha256, let rejected = await standingRejection(of: sha, id) {
      return finishHeld(id, Self.holdReason(rejected))
    }
    guard let fetcher = fetchers.first(where: { $0.canFetch(remote) }) else {
      return await finishFailure(
        id, FetchError(.unsupported, "no fetcher for \(remote.scheme ?? "this") URLs"), quiet: false
      )
    }
    if manual { records[id]?.autoRefreshBlocked = false }
    if !quiet { setActivity(id, .checking) }

    let resume = await takeResume(id, remote: remote)
    let sink: DownloadSink
    do {
      let progress: @Sendable (TransferProgress) -> Void = { [weak self] progress in
        guard let self else { return }
        Task { await self.progressed(id, progress) }
      }
      sink = DownloadSink(
        partial: try resume?.partial ?? store.createPartial(for: id),
        maxBytes: definition.maxBytes, expectedSize: definition.expectedSize,
        journal: resumeJournal(id, remote: remote), onProgress: progress)
    } catch {
      return await finishFailure(
        id, FetchError(.storage, "cannot create a partial file: \(error)"), quiet: quiet)
    }
    var keptForResume = false
    // After a commit the file was moved into objects/, so discarding it is then a no-op.
    func release() {
      if !keptForResume {
        sink.forgetResume()
        sink.discard()
      }
    }
    defer { release() }
    // A server known to ignore If-None-Match for this asset is asked another way
    // (RevalidationPlan): the validators and the encoding come from the entry's note.
    let sent = RevalidationPlan.request(
      conditional, note: record.entry.revalidation,
      asksForGzip: CompressionPolicy.asksForGzip(format: definition.format, url: remote),
      refresh: definition.refresh, now: clock.now())
    var request = FetchRequest(
      url: remote, headers: definition.headers,
      etag: sent.ifNoneMatch, lastModified: sent.lastModified,
      maxBytes: definition.maxBytes,
      expectedSize: definition.expectedSize, expectedSHA256: definition.sha256,
      timeout: definition.timeout,
      allowInsecure: definition.allowInsecure)
    request.tls = definition.tls
    request.proxy = definition.proxy
    request.acceptsCompressed = sent.asksForGzip
    if sink.resumeOffset > 0, let resume { request.resume = (sink.resumeOffset, resume.etag) }
    records[id]?.requestedAt = clock.now()
    do {
      // A large asset with a chunk index and a cached copy moves only the chunks it lacks; any
      // trouble with that falls back to the whole download below (AssetEngine+Delta.swift).
      var delta: DeltaStats?
      let response: FetchResponse
      let attempt: DeltaResult =
        if fetcher.canFetchRanges(remote) {
          await deltaDownload(
            id, definition: definition, fetcher: fetcher, request: request, sink: sink,
            resumeTag: resume?.etag)
        } else { .wholeDownload }
      switch attempt {
      case .done(let metadata, let stats):
        (response, delta) = (.downloaded(metadata), stats)
      case .interrupted(let error):
        throw error  // kept for the next attempt, like a cut download
      case .wholeDownload:
        // A delta that gave up emptied the sink: nothing is left to continue.
        if sink.bytesWritten == 0 { request.resume = nil }
        // A compressed body is bounded by its decoded size (maxBytes), never by its ratio: a
        // very repetitive file arrives once, compressed (HTTPClientPool.decodedLimit).
        response = try await fetcher.fetch(request, into: sink)
      }
      switch response {
      case .notModified(let metadata):
        guard let entry = records[id]?.entry else { return .notModified }
        let verdict = AssetRefreshLifecycle.notModified(entry, conditional: conditional)
        switch verdict {
        case .stillRejected: throw stillRejected(id)
        case .unconditional:
          throw FetchError(
            .httpStatus, "the server answered 304 Not Modified to an unconditional request",
            status: 304)
        case .bookkeeping, .clearFailure:
          // A probe answered with a 304: the server honours If-None-Match again.
          let note = RevalidationPlan.afterNotModified(entry.revalidation, sent: sent)
          if note != nil {
            log(
              id, .info, "the server answers If-None-Match with 304 again; revalidating with ETags")
          }
          return await finishNotModified(
            id, metadata: metadata, quiet: quiet, revalidation: note,
            durable: note != nil || verdict == .clearFailure)
        }
      case .downloaded(let metadata):
        do {
          let outcome = try await commitDownload(
            id, sink: sink, metadata: metadata, epoch: epoch, sent: sent, delta: delta)
          if delta == nil, case .updated = outcome, fetcher.canFetchRanges(remote) {
            await keepPublishedIndex(id, definition: definition, fetcher: fetcher, request: request)
          }
          return outcome
        } catch let error as FetchError where error.kind.isValidation {
          release()  // the space goes back before the failure is written (a full disk)
          return await finishFailure(
            id, trustChecked(id, error), quiet: quiet,
            rejecting: RejectedResponse(
              etag: metadata.etag, lastModified: metadata.lastModified,
              remote: remote.absoluteString))
        }
      }
    } catch {
      let fetchError = error as? FetchError ?? HTTPFetcher.translate(error, phase: "fetching")
      // Transport trouble or quitting mid-download: keep the bytes for a Range request next time
      // (not when a command overtook the transfer).
      let transient = fetchError.kind.isTransport
      if records[id]?.epoch == epoch, transient || (Task.isCancelled && lifecycle.isShutDown) {
        // An fdatasync and a durable record: on the blocking pool (at a shutdown every
        // transfer under way does this at once).
        keptForResume = await Self.offActor { sink.keepForResume() }
      }
      if Task.isCancelled || records[id]?.epoch != epoch {
        // Cancelled by shutdown or overtaken by a command (drop, reset, rollback): not a
        // failure of the asset, so nothing is recorded.
        records[id]?.activity = .idle
        publishChange(id)
        return .failed(FetchError(.cancelled, "cancelled"))
      }
      // A partial that is not kept goes now, not after the failure is written: on a full disk
      // its space is what the entry needs to remember the failure.
      release()
      return await finishFailure(id, trustChecked(id, fetchError), quiet: quiet)
    }
  }

  /// The check found the server still holding the response that failed validation: the same
  /// failure again, without a download.
  private func stillRejected(_ id: String) -> FetchError {
    guard let last = records[id]?.entry.lastError else {
      return FetchError(.invalid, "the server still has the version that failed validation")
    }
    var message = last.message
    if message.hasPrefix(Self.staleIfErrorPrefix) {
      message.removeFirst(Self.staleIfErrorPrefix.count)
    }
    return FetchError(last.kind, message)
  }

  func progressed(_ id: String, _ progress: TransferProgress) {
    guard let activity = records[id]?.activity else { return }
    switch activity {
    case .checking, .downloading:
      records[id]?.activity = .downloading(progress)
      publish(.progress(id: id, progress))
      if case .checking = activity { publishChange(id) }
    default: break
    }
  }

  func setActivity(_ id: String, _ activity: AssetActivity) {
    records[id]?.activity = activity
    publishChange(id)
  }

  // MARK: - Outcomes

  private func commitDownload(
    _ id: String, sink: DownloadSink, metadata: FetchMetadata, epoch: UInt64,
    sent: RevalidationPlan.Request, delta: DeltaStats? = nil
  ) async throws -> RefreshOutcome {
    guard let definition = records[id]?.definition, records[id]?.epoch == epoch else {
      throw FetchError(.cancelled, "overtaken by a command")
    }
    setActivity(id, .validating)
    let (sha, size) = try sink.digest()
    if let expected = definition.expectedSize, size != expected {
      throw FetchError(
        .sizeMismatch, "received \(CountText.of(Int(size), "byte")), expected \(expected)")
    }
    if let expected = definition.sha256, sha != expected {
      throw FetchError(
        .hashMismatch,
        "SHA-256 \(sha.prefix(12))… does not match the expected \(expected.prefix(12))…")
    }
    // Reading the file back and flushing it to disk happen off the actor: events and commands
    // go on meanwhile. A command that overtook the refresh during the wait wins.
    let format = definition.format
    let validate = validators[id]
    let path = sink.path
    try await IOExecutor.run {
      if let problem = FormatValidator.problem(format: format, path: path) {
        throw FetchError(.invalid, problem)
      }
      if let validate {
        do {
          try validate(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
          throw FetchError(.invalid, "rejected by the app's validator: \(error)")
        }
      }
      do { try sink.sync() } catch {
        throw FetchError(.storage, "committing failed: \(error)")
      }
    }
    let rejections = await standingRejections(id)
    guard let record = records[id], record.epoch == epoch else {
      throw FetchError(.cancelled, "overtaken by a command")
    }
    if let rejection = rejections.last(where: { $0.sha256 == sha }) {
      // The server still serves the rejected bytes (a target that names no hash): keep what
      // is served, commit nothing.
      let shown = rejection.version ?? String(sha.prefix(8))
      return finishHeld(id, "the server still serves the rejected \(shown); not committed")
    }
    let now = clock.now()
    let freshness = serverFreshness(id, metadata: metadata, receivedAt: now, revalidated: false)
    let next = AssetRefreshLifecycle.nextCheck(definition.refresh, after: now)
    let markChecked: @Sendable (inout CacheEntry) -> Void = {
      $0.markChecked(at: now, next: next, freshness: freshness)
    }
    if let current = record.entry.current, current.sha256 == sha {
      guard sent.isConditional else {
        // Same bytes (a server without validators): only freshness and validators move.
        try await updateEntry(id) { entry in
          markChecked(&entry)
          entry.current?.etag = metadata.etag
          entry.current?.lastModified = metadata.lastModified
        }
        return finishAttempt(id, outcome: .notModified, detail: "same bytes")
      }
      return try await finishUnchangedBody(
        id, current: current, size: size, metadata: metadata, sent: sent, at: now,
        markChecked: markChecked)
    }
    let version = targetVersion(for: id, sha: sha)
    let generation = Generation(
      sha256: sha, size: size, version: version, etag: metadata.etag,
      lastModified: metadata.lastModified,
      remote: definition.remote?.absoluteString, fetchedAt: now)
    // The previous generation is what a rejection goes back to: the last confirmed copy, never
    // one on probation or rejected.
    let unconfirmed = record.probation?.sha256
    let rejected = Set(rejections.map(\.sha256))
    do {
      try await updateEntry(id, committing: (sink, sha)) { entry in
        markChecked(&entry)
        entry.previous = Self.previousAfterCommit(
          of: sha, over: entry, unconfirmed: unconfirmed, rejected: rejected)
        entry.current = generation
      }
    } catch {
      throw FetchError(.storage, "committing failed: \(error)")
    }
    await beginProbation(id, sha: sha, version: version, at: now)
    let shown = version ?? String(sha.prefix(8))
    metrics.downloaded(id, bytes: size)
    if let delta {
      let store = self.store
      await Self.offActor { store.storeChunkIndex(delta.index) }
      let moved =
        "fetched \(ByteCountText.format(delta.fetchedBytes)) in \(CountText.of(delta.ranges, "range")), reused \(ByteCountText.format(delta.reusedBytes))"
      log(id, .info, "updated to \(shown) (\(ByteCountText.format(size)): \(moved))")
      return finishAttempt(id, outcome: .updated(version: shown), detail: "\(shown), \(moved)")
    }
    log(id, .info, "updated to \(shown) (\(ByteCountText.format(size)))")
    return finishAttempt(id, outcome: .updated(version: shown), detail: shown)
  }

  /// Ends an attempt whose conditional request got the whole body back, with the bytes already
  /// held: a 304 in effect, so the copy is renewed, but a transfer the server should have saved.
  /// It is counted (history, metric, the entry's note for `status`), and a server that ignored
  /// the validator it was sent is marked and asked another way next time (``RevalidationPlan``).
  private func finishUnchangedBody(
    _ id: String, current: Generation, size: Int64, metadata: FetchMetadata,
    sent: RevalidationPlan.Request, at now: Date,
    markChecked: @escaping @Sendable (inout CacheEntry) -> Void
  ) async throws -> RefreshOutcome {
    let before = records[id]?.entry.revalidation
    let asksForGzip =
      records[id].map {
        CompressionPolicy.asksForGzip(
          format: $0.definition.format, path: URL(string: current.remote ?? "")?.path ?? "")
      } ?? false
    let note = RevalidationPlan.afterUnchangedBody(
      before, sent: sent, response: metadata, held: (current.etag, current.lastModified),
      bytes: size, asksForGzip: asksForGzip, now: now)
    try await updateEntry(id) { entry in
      markChecked(&entry)
      entry.current?.etag = metadata.etag
      entry.current?.lastModified = metadata.lastModified
      entry.revalidation = note
    }
    metrics.unchangedBody(id, bytes: size)
    var detail = "whole body came back unchanged (\(ByteCountText.format(size)))"
    if let fallback = note.fallback, fallback != before?.fallback || sent.isProbe {
      let why = "the server ignores \(RevalidationPlan.describe(sent.method))"
      let how = "revalidating with \(RevalidationPlan.describe(fallback))"
      detail += "; \(why): \(how)"
      log(
        id, .warning,
        "\(why) (a whole \(ByteCountText.format(size)) body came back unchanged); \(how)")
    }
    return finishAttempt(id, outcome: .notModified, detail: detail)
  }

  /// Ends an attempt answered by a 304: `durable` when a failure is being cleared or the
  /// `revalidation` note changes (the entry is written), else only bookkeeping moves (see
  /// ``AssetRefreshLifecycle/NotModified``).
  private func finishNotModified(
    _ id: String, metadata: FetchMetadata, quiet: Bool, revalidation: RevalidationNote? = nil,
    durable: Bool
  ) async -> RefreshOutcome {
    guard let record = records[id] else { return .notModified }
    let now = clock.now()
    let next = AssetRefreshLifecycle.nextCheck(record.definition.refresh, after: now)
    let freshness = serverFreshness(id, metadata: metadata, receivedAt: now, revalidated: true)
    let markChecked: @Sendable (inout CacheEntry) -> Void = {
      $0.markChecked(at: now, next: next, freshness: freshness)
      if let revalidation { $0.revalidation = revalidation }
    }
    if !durable {
      // Only bookkeeping moves: memory now, the freshness journal later, no durable rewrite
      // (two fsyncs per asset). Live checks also send no event per poll.
      markChecked(&records[id, default: record].entry)
      noteFreshness(id)
      if quiet {
        publishLiveRenewal(id, at: now)
        return .notModified
      }
      return finishAttempt(id, outcome: .notModified, detail: nil)
    }
    do {
      try await updateEntry(id, markChecked)
    } catch {
      return await finishFailure(
        id, FetchError(.storage, "saving metadata failed: \(error)"), quiet: quiet)
    }
    return finishAttempt(id, outcome: .notModified, detail: nil)
  }

  /// Ends an attempt that deliberately fetched nothing (``AssetRefreshLifecycle/Start/hold(_:)``):
  /// a successful check of what the instance decided to serve, in memory (the next check
  /// decides again), with `why` in its history.
  private func finishHeld(_ id: String, _ why: String) -> RefreshOutcome {
    guard let record = records[id] else { return .notModified }
    let now = clock.now()
    let next = AssetRefreshLifecycle.nextCheck(record.definition.refresh, after: now)
    records[id]?.entry.markChecked(at: now, next: next, freshness: nil)
    return finishAttempt(id, outcome: .notModified, detail: why)
  }

  /// Records a failed attempt: the error, the failure count and the next attempt, backed off
  /// (see ``Backoff``), durably when the disk allows and in memory always; `rejecting` remembers
  /// the validators of a response that failed validation.
  func finishFailure(
    _ id: String, _ error: FetchError, quiet: Bool, rejecting: RejectedResponse? = nil
  ) async -> RefreshOutcome {
    guard let record = records[id] else { return .failed(error) }
    let now = clock.now()
    switch AssetRefreshLifecycle.failure(record, error, quiet: quiet, at: now, backoff: backoff) {
    case .repeatQuietly(let next):
      records[id]?.activity = .idle
      records[id]?.entry.nextAttemptAt = next
      return .failed(error)
    case .record(let failures, let plan):
      if plan == .blocked { records[id]?.autoRefreshBlocked = true }
      let next = plan.date
      let recorded = failureMessage(id, error, at: now)
      let kind = error.kind
      _ = try? await updateEntry(id) { entry in
        entry.lastError = AssetErrorRecord(kind: kind, message: recorded, at: now)
        entry.consecutiveFailures = failures
        entry.nextAttemptAt = next
        if let rejecting { entry.rejected = rejecting }
      }
      log(
        id, .error,
        AssetRefreshLifecycle.failureMessage(
          error, serving: records[id]?.source, plan: plan, at: now))
      return finishAttempt(id, outcome: .failed(error), detail: error.message)
    }
  }

  /// Ends an attempt: idle activity, history, metrics, one change event.
  private func finishAttempt(_ id: String, outcome: RefreshOutcome, detail: String?)
    -> RefreshOutcome
  {
    records[id]?.activity = .idle
    records[id]?.appendHistory(
      RefreshRecord(
        at: clock.now(), outcome: outcome.kind, detail: detail.map { TerminalText.sanitize($0) }))
    metrics.attempt(id, outcome: outcome.word)
    if let started = records[id]?.attemptStartedAt {
      metrics.duration(id, started.duration(to: .now))
      records[id]?.attemptStartedAt = nil
    }
    if let record = records[id] {
      metrics.state(id, failures: record.entry.consecutiveFailures, servedBytes: record.servedSize)
    }
    publishChange(id)
    return outcome
  }

  /// The manifest's version for these bytes, when the manifest names this hash.
  private func targetVersion(for id: String, sha: String) -> String? {
    if configuration.tuf != nil { return signedVersion(for: id, sha: sha) }  // +Trust.swift
    guard let entry = manifest?.manifest.assets.first(where: { $0.id == id }) else { return nil }
    if entry.sha256?.lowercased() == sha { return entry.version }
    // A held-back instance commits the staged rollout's `from`.
    if let from = entry.rollout?.from, from.sha256?.lowercased() == sha { return from.version }
    return nil
  }

  func nextScheduledCheck(_ definition: AssetDefinition, after now: Date) -> Date? {
    AssetRefreshLifecycle.nextCheck(definition.refresh, after: now)
  }
}

/// How often `live` assets are polled (a `stat` per poll; the DESIGN asks for < 200 ms).
enum LiveWatch {
  static let pollInterval: TimeInterval = 0.1
}
