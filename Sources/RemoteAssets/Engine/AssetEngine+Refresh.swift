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
    await refreshManifest()  // nothing after a shutdown
    return await refresh(id, manual: true)
  }

  /// Refreshes every asset (and the manifest first), at most `maxConcurrentTransfers` at once.
  ///
  /// - Returns: each asset's outcome, in config order.
  public func refreshAll() async -> [(id: String, outcome: RefreshOutcome)] {
    await refreshManifest()
    let ids = core.order
    let order = RefreshCore.refreshAllOrder(ids) { core.records.essential($0) }
    // Twice what may be under way: the limits stay full, and no more tasks wait than that.
    let results = await WindowedTasks.run(
      count: ids.count, order: order, window: 2 * refreshes.limit,
      placeholder: RefreshOutcome.inFlight
    ) { index, finish in
      refresh(ids[index], manual: true, then: finish)
    }
    return zip(ids, results).map { ($0, $1) }
  }

  func refresh(_ id: String, manual: Bool) async -> RefreshOutcome {
    if let refused = refused(id) { return refused }
    let (task, joined) = startRefresh(id, manual: manual)
    let outcome = await task.value
    return joined ? .inFlight : outcome
  }

  /// Starts refreshing `id` as ``refresh(_:manual:)`` does and returns at once: `finish` gets
  /// the outcome from the refresh's own task when it ends (no task waits for it).
  func refresh(
    _ id: String, manual: Bool, then finish: @escaping @Sendable (RefreshOutcome) -> Void
  ) {
    if let refused = refused(id) { return finish(refused) }
    let (task, joined) = startRefresh(id, manual: manual, onEnd: finish)
    // Joined a refresh already running: its task was made without `finish`.
    if joined {
      Task {
        _ = await task.value
        finish(.inFlight)
      }
    }
  }

  /// The outcome of a refresh of `id` that may not start (an unknown id, a shutdown).
  private func refused(_ id: String) -> RefreshOutcome? {
    RefreshCore.refusal(
      id, known: core.records.contains(id), shutDown: core.lifecycle.isShutDown
    ).map { .failed($0) }
  }

  /// Starts a refresh, or returns the one already running (single flight). A new refresh's task
  /// calls `onEnd` with its outcome as it ends.
  @discardableResult
  func startRefresh(
    _ id: String, manual: Bool, onEnd: (@Sendable (RefreshOutcome) -> Void)? = nil
  ) -> (task: Task<RefreshOutcome, Never>, joined: Bool) {
    if let running = inFlight[id] { return (running, true) }
    // The task inherits the actor's isolation, so it cannot run before it is registered below.
    let task = Task {
      let outcome = await self.performRefresh(id, manual: manual)
      self.inFlight[id] = nil
      self.wakeScheduler()  // its next check may be sooner than the scheduler's sleep
      onEnd?(outcome)
      return outcome
    }
    inFlight[id] = task
    return (task, false)
  }

  /// The core that decides a refresh (``RefreshCore``).
  var refreshCore: RefreshCore { RefreshCore(backoff: core.backoff) }

  private func performRefresh(_ id: String, manual: Bool) async -> RefreshOutcome {
    let essential = core.records[id]?.definition.essential ?? false
    await refreshes.acquire(essential: essential)
    defer { refreshes.release(essential: essential) }
    // Held for the transfer only: `download` gives it back when the bytes are in, so the next
    // transfer starts as this one is checked and committed.
    await limiter.acquire(for: id, essential: essential)
    defer { limiter.endTransfer(of: id) }
    // Read after the wait: the manifest may have changed the URL, size or hash meanwhile.
    let standing = await standingRejections(id)
    core.records[id]?.attemptStartedAt = .now
    let actions = refreshCore.begin(
      core.records[id], manual: manual, standing: standing, fetchers: fetchers, at: clock.now())
    do {
      return try await runRefresh(id, actions, in: nil)
    } catch {
      return .failed(RefreshCore.fetchError(error))  // nothing before the transfer raises
    }
  }

  /// What the steps of an attempt that fetches work with.
  struct RefreshTransfer {
    var attempt: RefreshCore.Attempt
    var fetcher: any AssetFetcher
    var request: FetchRequest
    var sink: DownloadSink
  }

  /// Downloads as `attempt` says: a delta first where one applies, else the whole file (a
  /// kept partial continued), then performs what the core makes of the response.
  private func download(_ id: String, _ attempt: RefreshCore.Attempt) async -> RefreshOutcome {
    let definition = attempt.definition
    // One journal for the download: the one a kept partial is taken from keeps the new bytes.
    let journal = store.resumeJournal(id, remote: attempt.remote)
    let resume = await takeResume(journal)
    let sink: DownloadSink
    do {
      let progress: @Sendable (TransferProgress) -> Void = { [weak self] progress in
        Task { await self?.progressed(id, progress) }
      }
      sink = DownloadSink(
        partial: try resume?.partial ?? store.createPartial(for: id),
        maxBytes: definition.maxBytes, expectedSize: definition.expectedSize,
        journal: journal, onProgress: progress,
        onTransferEnd: { [limiter] in limiter.endTransfer(of: id) })
    } catch {
      let failure = FetchError(.storage, "cannot create a partial file: \(error)")
      return await runQuietly(id, [.fail(failure, quiet: attempt.quiet, rejecting: nil)])
    }
    var kept = false
    // After a commit the file was moved into objects/, so discarding it is then a no-op.
    defer {
      if !kept {
        sink.forgetResume()
        sink.discard()
      }
    }
    let transfer = RefreshTransfer(
      attempt: attempt, fetcher: fetchers[attempt.fetcher],
      request: RefreshCore.request(
        attempt, resumeOffset: sink.resumeOffset, resumeTag: resume?.etag),
      sink: sink)
    core.records[id]?.requestedAt = clock.now()
    do {
      let (response, delta) = try await fetch(id, transfer, resumeTag: resume?.etag)
      limiter.endTransfer(of: id)
      let actions = refreshCore.responded(
        response, delta: delta, record: core.records[id], attempt: attempt, at: clock.now())
      return try await runRefresh(id, actions, in: transfer)
    } catch {
      limiter.endTransfer(of: id)
      let failure = RefreshCore.fetchError(error)
      let current = core.records[id]?.epoch == attempt.epoch
      // Transport trouble or quitting mid-download: keep the bytes for a Range request next
      // time. An fdatasync and a durable record: on the blocking pool (at a shutdown every
      // transfer under way does this at once).
      let keeps = RefreshCore.keepsPartial(
        failure, current: current, cancelled: Task.isCancelled, shutDown: core.lifecycle.isShutDown)
      kept = await Self.offActor { keeps && sink.keepForResume() }
      let actions = refreshCore.transferFailed(
        failure, quiet: attempt.quiet, current: core.records[id]?.epoch == attempt.epoch,
        cancelled: Task.isCancelled, kept: kept)
      return await runQuietly(id, actions, in: transfer)
    }
  }

  /// The transfer: a large asset with a chunk index and a cached copy moves only the chunks it
  /// lacks; any trouble with that falls back to the whole download (AssetEngine+Delta.swift).
  private func fetch(
    _ id: String, _ transfer: RefreshTransfer, resumeTag: String?
  ) async throws -> (FetchResponse, DeltaStats?) {
    if let done = try await deltaDownload(id, transfer, resumeTag: resumeTag) {
      return (done.0, done.1)
    }
    // A compressed body is bounded by its decoded size (maxBytes), never by its ratio: a very
    // repetitive file arrives once, compressed (HTTPClientPool.decodedLimit).
    let request = RefreshCore.wholeDownload(
      transfer.request, bytesWritten: transfer.sink.bytesWritten)
    return (try await transfer.fetcher.fetch(request, into: transfer.sink), nil)
  }

  /// Performs `actions` where nothing raises (a failure already decided).
  private func runQuietly(
    _ id: String, _ actions: [RefreshAction], in transfer: RefreshTransfer? = nil
  ) async -> RefreshOutcome {
    do {
      return try await runRefresh(id, actions, in: transfer)
    } catch {
      return .failed(RefreshCore.fetchError(error))  // a failure's actions do not raise
    }
  }

  /// Performs `actions` in order, feeding the result of each step that can fail back to the
  /// core and performing what it answers; returns the attempt's outcome. A `raise` throws (the
  /// transfer failed).
  func runRefresh(
    _ id: String, _ actions: [RefreshAction], in transfer: RefreshTransfer?
  ) async throws -> RefreshOutcome {
    var outcome = RefreshOutcome.notModified
    try await drive(actions) { action, queue in
      switch action {
      case .fetch(let attempt):
        outcome = await download(id, attempt)
        queue = []  // the attempt's own actions ran inside the download
      case .change(let change):
        change.apply(to: &core.records[id])
      case .publishChange:
        publishChange(id)
      case .validate(let metadata, let delta):
        queue = try await validate(id, metadata, delta, in: transfer)[...]
      case .writeEntry(let change, let failure):
        do {
          _ = try await updateEntry(id) { change.apply(to: &$0) }
        } catch {
          queue = RefreshCore.writeFailed(error, failure, rest: Array(queue))[...]
        }
      case .commit(let change, let commit):
        try await self.commit(id, change, commit, in: transfer)
      case .noteFreshness:
        core.noteFreshness(id)
      case .count(let count):
        metrics.count(count, id)
      case .keepPublishedIndex:
        await keepPublishedIndex(id, transfer)
      case .resetSink:
        try? transfer?.sink.reset()
      case .dropChunkIndexes(let copies):
        let store = self.store
        await Self.offActor { for sha in copies { store.removeChunkIndex(ofBlob: sha) } }
      case .releasePartial:
        // The space goes back before the failure is written (a full disk).
        transfer?.sink.forgetResume()
        transfer?.sink.discard()
      case .fail(let error, let quiet, let rejecting):
        queue =
          refreshCore.failed(
            core.records[id], trustChecked(id, error), quiet: quiet, rejecting: rejecting,
            serving: core.records[id]?.status(store: store, paused: false), at: clock.now())[...]
      case .raise(let error):
        throw error
      case .log(let level, let message):
        log(id, level, message)
      case .finish(let finished, let detail):
        outcome = finishAttempt(id, outcome: finished, detail: detail)
      case .reply(let reply):
        outcome = reply
        queue = []  // nothing after a reply is performed
      }
    }
    return outcome
  }

  /// Checks the downloaded bytes: digest, size and hash, format, the app's validator (the
  /// commit flushes them to disk). Reading the file back happens off the actor: events and
  /// commands go on meanwhile. A command that overtook the refresh during the wait wins.
  private func validate(
    _ id: String, _ metadata: FetchMetadata, _ delta: DeltaStats?, in transfer: RefreshTransfer?
  ) async throws -> [RefreshAction] {
    let transfer = try Self.required(transfer)
    let sink = transfer.sink
    setActivity(id, .validating)
    let (sha, size) = try sink.digest()
    do {
      let format = try RefreshCore.checkDigest(
        sha: sha, size: size, record: core.records[id], attempt: transfer.attempt)
      try await DownloadCheck.perform(
        format: format, validate: validators[id], sink: sink, size: size)
    } catch let error as FetchError where error.kind.isValidation {
      return refreshCore.refused(error, metadata: metadata, attempt: transfer.attempt)
    }
    let rejections = await standingRejections(id)
    let configured = core.manifest?.manifest.assets.first { $0.id == id }
    return refreshCore.validated(
      core.records[id], download: .init(sha256: sha, size: size, metadata: metadata, delta: delta),
      attempt: transfer.attempt, rejections: rejections,
      version: RefreshCore.version(
        sha: sha, signed: signedVersion(for: id, sha: sha), tuf: configuration.tuf != nil,
        entry: configured),
      at: clock.now())
  }

  /// The transfer a step after the response works with (always there: a response comes only
  /// from one).
  private static func required(_ transfer: RefreshTransfer?) throws -> RefreshTransfer {
    guard let transfer else { throw FetchError(.cancelled, "no transfer under way") }
    return transfer
  }

  /// Makes the downloaded blob current with `change`, under the commit lock; then puts it on
  /// probation, counts the download, and keeps a delta's new index beside it.
  private func commit(
    _ id: String, _ change: RefreshEntryChange, _ commit: RefreshCore.Commit,
    in transfer: RefreshTransfer?
  ) async throws {
    let transfer = try Self.required(transfer)
    do {
      _ = try await updateEntry(id, committing: (transfer.sink, commit.sha)) {
        change.apply(to: &$0)
      }
    } catch {
      throw RefreshCore.commitFailed(error)
    }
    await beginProbation(id, sha: commit.sha, version: commit.version, at: commit.at)
    metrics.downloaded(id, bytes: commit.bytes)
    if let delta = commit.delta {
      let store = self.store
      await Self.offActor { store.storeChunkIndex(delta.index) }
    }
  }

  func progressed(_ id: String, _ progress: TransferProgress) {
    let step = RefreshCore.progress(showing: core.records[id]?.activity)
    guard step.shown else { return }
    core.records[id]?.activity = .downloading(progress)
    publish(.progress(id: id, progress))
    if step.changed { publishChange(id) }
  }

  func setActivity(_ id: String, _ activity: AssetActivity) {
    core.records[id]?.activity = activity
    publishChange(id)
  }

  /// Ends an attempt: idle activity, history, metrics, one change event.
  private func finishAttempt(_ id: String, outcome: RefreshOutcome, detail: String?)
    -> RefreshOutcome
  {
    let took = core.records[id]?.finishAttempt(
      outcome, detail: detail, at: clock.now(), instant: .now)
    metrics.attempt(id, outcome: outcome.word)
    metrics.finished(id, record: core.records[id], took: took.flatMap { $0 })
    publishChange(id)
    return outcome
  }

  func nextScheduledCheck(_ definition: AssetDefinition, after now: Date) -> Date? {
    AssetRefreshLifecycle.nextCheck(definition.refresh, after: now)
  }
}

/// How often `live` assets are polled (a `stat` per poll; the DESIGN asks for < 200 ms).
enum LiveWatch {
  static let pollInterval: TimeInterval = 0.1
}
