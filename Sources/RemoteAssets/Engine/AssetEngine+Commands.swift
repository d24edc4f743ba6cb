import Foundation

/// A command that cannot be carried out (unknown id, nothing to roll back to, disk failure).
package struct CommandError: Error, Sendable, CustomStringConvertible {
  /// Why, in plain words.
  public var message: String
  public var description: String { message }
}

extension AssetEngine {
  /// Carries out a command from the dashboard or the CLI; a refusal is reported as a log event
  /// (a failed refresh or verify shows in the asset's state).
  public func perform(_ command: AssetCommand) async {
    let reply = await execute(command)
    if reply.isRefusal, let error = reply.error { log(nil, .error, error) }
  }

  /// Answers `command`: the one place a command is carried out, for this process's link and the
  /// control socket alike. An asset the engine does not know is refused for every command that
  /// names one; a failed refresh or verify answers `ok: false` with its results.
  package func execute(_ command: AssetCommand) async -> CommandReply {
    if let id = command.assetID, records[id] == nil {
      return .refused("no asset named \(id)")
    }
    do {
      switch command {
      case .refresh(let id): return await refreshReply([(id, await refresh(id))])
      case .refreshAll: return await refreshReply(await refreshAll())
      case .resetToBundled(let id): try await resetToBundled(id)
      case .dropCache(let id): try await dropCache(id)
      case .rollback(let id): try await rollback(id)
      case .pauseAutoRefresh: pauseAutoRefresh()
      case .resumeAutoRefresh: resumeAutoRefresh()
      case .verify(let id): return verifyReply(await verify([id]))
      case .verifyAll: return verifyReply(await verify(nil))
      case .confirm(let id): try await confirm(id)
      case .reject(let id, let reason): try await reject(id, reason: reason)
      }
      return CommandReply(ok: true)
    } catch {
      return .refused("\(error)")
    }
  }

  /// The reply to a refresh: each outcome with the version served afterwards; not ok when one
  /// failed (the first failure is the reply's error).
  private func refreshReply(_ list: [(id: String, outcome: RefreshOutcome)]) -> CommandReply {
    let items = list.map { item -> ControlRefreshResult in
      var error: String?
      if case .failed(let failure) = item.outcome { error = failure.message }
      return ControlRefreshResult(
        asset: item.id, outcome: item.outcome.kind, version: status(item.id)?.version,
        error: error)
    }
    let failed = items.first { $0.error != nil }
    return CommandReply(
      ok: failed == nil, error: failed.map { "\($0.asset): \($0.error ?? "")" }, results: items)
  }

  /// The reply to a verify: what re-hashing found; not ok when a copy is damaged.
  private func verifyReply(_ list: [VerifyResult]) -> CommandReply {
    let items = list.map {
      ControlVerifyResult(asset: $0.id, checked: $0.checked, problem: $0.problem)
    }
    let damaged = items.first { $0.problem != nil }
    return CommandReply(
      ok: damaged == nil, error: damaged.map { "\($0.asset): \($0.problem ?? "")" },
      verified: items)
  }

  /// Stops serving the cached copy and serves the bundled one (the cached copy is kept as the
  /// previous generation, so ``rollback(_:)`` can bring it back).
  ///
  /// - Throws: ``CommandError`` for an unknown id or a disk failure.
  public func resetToBundled(_ id: String) async throws {
    try await mutateEntry(id, verb: "reset") { entry in
      if let current = entry.current { entry.previous = current }
      entry.current = nil
      entry.checkedAt = nil
      entry.lastError = nil
      entry.consecutiveFailures = 0
    }
    log(
      id, .info,
      records[id]?.definition.bundled == nil
        ? "reset; no bundled copy, nothing to serve" : "reset to the bundled copy")
  }

  /// Deletes the asset's cached copy and metadata: it serves its bundled copy, or nothing.
  ///
  /// - Throws: ``CommandError`` for an unknown id or a disk failure.
  public func dropCache(_ id: String) async throws {
    guard records[id] != nil else { throw CommandError(message: "no asset named \(id)") }
    records[id]?.epoch &+= 1
    await cancelInFlight(id)
    let known = [records[id]?.entry.current?.sha256, records[id]?.entry.previous?.sha256]
    do {
      let store = self.store
      // The entry goes, then (still under the lock) the blobs it named that no other entry
      // names: another process may have committed the same bytes meanwhile.
      try await IOExecutor.run {
        try store.withCommitLock {
          let disk = (try? store.readEntry(id)) ?? nil
          try store.removeEntry(id)
          store.removeUnnamedBlobs(
            Set(([disk?.current?.sha256, disk?.previous?.sha256] + known).compactMap { $0 }))
        }
      }
      records[id]?.synced = nil
    } catch {
      throw CommandError(message: "\(id): dropping the cache failed: \(error)")
    }
    records[id]?.entry = CacheEntry(id: id, appVersion: configuration.appVersion)
    if let definition = records[id]?.definition {
      records[id]?.entry.nextAttemptAt = nextScheduledCheck(definition, after: clock.now())
    }
    wakeScheduler()
    publishChange(id)
    log(
      id, .info,
      records[id]?.definition.bundled == nil
        ? "cache dropped; nothing to serve" : "cache dropped; serving the bundled copy")
  }

  /// Goes back to the previous good generation (the current one becomes the previous).
  ///
  /// The previous copy is the one the entry on disk names now, hashed before anything changes.
  /// The swap happens under the commit lock only if the entry still names that same copy
  /// (SHA-256 and commit stamp); if another process committed, reset or rolled back meanwhile,
  /// nothing changes and the command says so. A blob that vanished because another process
  /// replaced the entry is not called missing: only a second look under the lock decides.
  ///
  /// - Throws: ``CommandError`` when there is no intact previous generation, or the entry
  ///   changed under the command.
  public func rollback(_ id: String) async throws {
    guard let record = records[id] else { throw CommandError(message: "no asset named \(id)") }
    let remembered = record.entry.previous
    let store = self.store
    let (previous, problem) = await Self.offActor { () -> (Generation?, String?) in
      let previous = store.entryIfReadable(id).map { $0?.previous } ?? remembered
      return (previous, previous.flatMap { store.verifyBlob($0) })
    }
    guard let previous else {
      throw CommandError(message: "\(id): there is no previous generation to roll back to")
    }
    // Never back onto bytes a rejection blocks (the copy a `reject` went back from).
    if let rejection = await standingRejection(of: previous.sha256, id) {
      let shown = rejection.version ?? String(previous.sha256.prefix(8))
      throw CommandError(
        message: "\(id): cannot roll back: the previous generation, \(shown), was rejected")
    }
    if !store.isReadOnly {
      // The copy hashed may have been replaced meanwhile; the lock says whether it still stands
      // (and, when the hash failed, whether it really is bad).
      let check: CopyCheck
      do {
        check = try await IOExecutor.run {
          try store.recheck(id, .previous, copy: previous, trustingStamp: problem == nil)
        }
      } catch {
        throw CommandError(message: "\(id): roll back failed: \(error)")
      }
      switch check {
      case .intact: break
      case .changed: throw Self.changedMeanwhile(id)
      case .damaged(let problem, _):
        throw CommandError(message: "\(id): cannot roll back: \(problem)")
      }
    } else if let problem {
      throw CommandError(message: "\(id): cannot roll back: \(problem)")
    }
    let result = try await mutateEntry(id, verb: "roll back") { entry in
      // Under the commit lock, on the entry as it is on disk now: only the copy checked.
      guard entry.previous?.isSameCopy(as: previous) == true else { return }
      entry.previous = entry.current
      entry.current = previous
      entry.lastError = nil
      entry.consecutiveFailures = 0
    }
    guard result.current?.isSameCopy(as: previous) == true else { throw Self.changedMeanwhile(id) }
    log(id, .info, "rolled back to \(previous.version ?? String(previous.sha256.prefix(8)))")
  }

  /// The refusal of a rollback whose entry another process changed while it looked.
  private static func changedMeanwhile(_ id: String) -> CommandError {
    CommandError(
      message:
        "\(id): cannot roll back: another process changed the cached copy meanwhile; nothing was changed, run it again"
    )
  }

  /// Stops automatic refreshes (manual ones still run).
  public func pauseAutoRefresh() {
    guard !lifecycle.paused else { return }
    lifecycle.pausedAt = clock.now()
    publish(.engineChanged(info()))
    for id in order { publishChange(id) }
    log(nil, .info, "automatic refresh paused")
  }

  /// Restarts automatic refreshes.
  public func resumeAutoRefresh() {
    guard lifecycle.paused else { return }
    lifecycle.pausedAt = nil
    wakeScheduler()
    publish(.engineChanged(info()))
    for id in order { publishChange(id) }
    log(nil, .info, "automatic refresh resumed")
  }

  /// Applies `change` to the entry as it is on disk, under the commit lock; returns what was
  /// written.
  @discardableResult
  private func mutateEntry(
    _ id: String, verb: String, _ change: @escaping @Sendable (inout CacheEntry) -> Void
  ) async throws -> CacheEntry {
    guard records[id] != nil else { throw CommandError(message: "no asset named \(id)") }
    records[id]?.epoch &+= 1
    await cancelInFlight(id)
    let result: CacheEntry
    do {
      result = try await updateEntry(id, change)
    } catch {
      throw CommandError(message: "\(id): \(verb) failed: \(error)")
    }
    wakeScheduler()
    publishChange(id)
    return result
  }

  private func cancelInFlight(_ id: String) async {
    guard let task = inFlight[id] else { return }
    task.cancel()
    _ = await task.value
  }
}
