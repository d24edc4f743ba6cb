import Foundation

/// A command that cannot be carried out (unknown id, nothing to roll back to, disk failure).
package struct CommandError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Why, in plain words.
  public var message: String
  public var description: String { message }
}

extension AssetEngine {
  /// Carries out a command from the dashboard or the CLI; a refusal is reported as a log event
  /// (a failed refresh or verify shows in the asset's state).
  package func perform(_ command: AssetCommand) async {
    let reply = await execute(command)
    if let error = CommandCore.logged(reply) { log(nil, .error, error) }
  }

  /// Answers `command`: the one place a command is carried out, for this process's link and the
  /// control socket alike. ``CommandCore`` decides the step (an asset the engine does not know
  /// is refused for every command that names one); a failed refresh or verify answers
  /// `ok: false` with its results.
  package func execute(_ command: AssetCommand) async -> CommandReply {
    do {
      switch try CommandCore.plan(command, records: core.records) {
      case .refresh(let id): return refreshReply([(id, await refresh(id))])
      case .refreshAll: return refreshReply(await refreshAll())
      case .verify(let ids): return CommandCore.verifyReply(await verify(ids))
      case .resetToBundled(let id): try await resetToBundled(id)
      case .dropCache(let id): try await dropCache(id)
      case .rollback(let id): try await rollback(id)
      case .setPaused(let paused): setAutoRefreshPaused(paused)
      case .confirm(let id): try await confirm(id)
      case .reject(let id, let reason): try await reject(id, reason: reason)
      }
      return CommandReply(ok: true)
    } catch {
      return .refused("\(error)")
    }
  }

  /// The reply to a refresh, with the version each asset serves afterwards.
  private func refreshReply(_ list: [(id: String, outcome: RefreshOutcome)]) -> CommandReply {
    CommandCore.refreshReply(
      list.map { .init(id: $0.id, outcome: $0.outcome, version: servedVersion($0.id)) })
  }

  /// Stops serving the cached copy and serves the bundled one (the cached copy is kept as the
  /// previous generation, so ``rollback(_:)`` can bring it back).
  ///
  /// - Throws: `CommandError` for an unknown id or a disk failure.
  public func resetToBundled(_ id: String) async throws {
    let record = try await mutateEntry(id, verb: "reset", CommandCore.reset)
    log(id, .info, CommandCore.resetMessage(hasBundled: record.definition.bundled != nil))
  }

  /// Deletes the asset's cached copy and metadata: it serves its bundled copy, or nothing.
  ///
  /// - Throws: `CommandError` for an unknown id or a disk failure.
  public func dropCache(_ id: String) async throws {
    let record = try CommandCore.known(id, in: core.records)
    core.records[id]?.epoch &+= 1
    await cancelInFlight(id)
    let known = [core.records[id]?.entry.current?.sha256, core.records[id]?.entry.previous?.sha256]
    do {
      let store = self.store
      // The entry goes, then (still under the lock) the blobs it named that no other entry
      // names: another process may have committed the same bytes meanwhile.
      try await IOExecutor.run {
        try store.withCommitLock {
          let disk = try? store.readEntry(id)
          try store.removeEntry(id)
          store.removeUnnamedBlobs(
            Set(([disk?.current?.sha256, disk?.previous?.sha256] + known).compactMap { $0 }))
        }
      }
      core.records[id]?.synced = nil
    } catch {
      throw CommandError(message: "\(id): dropping the cache failed: \(error)")
    }
    // As it is now: a manifest may have changed it meanwhile.
    let definition = core.records[id]?.definition ?? record.definition
    core.records[id]?.entry = CommandCore.dropped(
      definition, appVersion: configuration.appVersion, at: clock.now())
    wakeScheduler()
    publishChange(id)
    log(id, .info, CommandCore.dropMessage(hasBundled: definition.bundled != nil))
  }

  /// Goes back to the previous good generation (the current one becomes the previous).
  ///
  /// The previous copy is the one the entry on disk names now, hashed before anything changes.
  /// The swap happens under the commit lock only when the entry still names that same copy
  /// (SHA-256 and commit stamp); when another process committed, reset or rolled back meanwhile,
  /// nothing changes and the command says so. A blob that vanished because another process
  /// replaced the entry is not called missing: only a second look under the lock decides.
  /// ``CommandCore`` decides each step (CommandCore+Rollback.swift).
  ///
  /// - Throws: `CommandError` when there is no intact previous generation, or the entry
  ///   changed under the command.
  public func rollback(_ id: String) async throws {
    let remembered = try CommandCore.known(id, in: core.records).entry.previous
    let store = self.store
    let (looked, problem) = await Self.offActor { () -> (Generation?, String?) in
      let previous = CommandCore.rollbackTarget(
        onDisk: store.entryIfReadable(id), remembered: remembered)
      return (previous, previous.flatMap { store.verifyBlob($0) })
    }
    let previous = try CommandCore.rollbackFrom(id, looked)
    let rejection = await standingRejection(of: previous.sha256, id)
    if try CommandCore.rollbackNeedsRecheck(
      id, previous: previous, problem: problem, rejection: rejection, readOnly: store.isReadOnly)
    {
      // The copy hashed may have been replaced meanwhile; the lock says whether it still stands
      // (and, when the hash failed, whether it really is bad).
      let check: CopyCheck
      do {
        check = try await IOExecutor.run {
          try store.recheck(id, .previous, copy: previous, trustingStamp: problem == nil)
        }
      } catch {
        throw CommandCore.rollbackFailed(id, error)
      }
      try CommandCore.rollbackRechecked(id, check)
    }
    let result = try await mutateEntry(id, verb: "roll back") {
      CommandCore.swapBack(&$0, to: previous)
    }
    log(id, .info, try CommandCore.rolledBack(id, to: previous, result: result.entry))
  }

  /// Stops automatic refreshes (manual ones still run).
  public func pauseAutoRefresh() {
    setAutoRefreshPaused(true)
  }

  /// Restarts automatic refreshes.
  public func resumeAutoRefresh() {
    setAutoRefreshPaused(false)
  }

  /// Pauses or resumes automatic refresh as ``EngineLifecycle/setPaused(_:at:)`` decides, and
  /// tells subscribers.
  private func setAutoRefreshPaused(_ paused: Bool) {
    guard let change = core.lifecycle.setPaused(paused, at: clock.now()) else { return }
    if change.wakesScheduler { wakeScheduler() }
    publish(.engineChanged(info()))
    for id in core.order { publishChange(id) }
    log(nil, .info, change.message)
  }

  /// Applies `change` to the entry as it is on disk, under the commit lock; returns the record
  /// before and the entry written.
  private func mutateEntry(
    _ id: String, verb: String, _ change: @escaping @Sendable (inout CacheEntry) -> Void
  ) async throws -> (definition: AssetDefinition, entry: CacheEntry) {
    let record = try CommandCore.known(id, in: core.records)
    core.records[id]?.epoch &+= 1
    await cancelInFlight(id)
    let result: CacheEntry
    do {
      result = try await updateEntry(id, change)
    } catch {
      throw CommandError(message: "\(id): \(verb) failed: \(error)")
    }
    wakeScheduler()
    publishChange(id)
    return (core.records[id]?.definition ?? record.definition, result)
  }

  /// Cancels the refresh of `id` under way (when there is one) and waits for it to end.
  func cancelInFlight(_ id: String) async {
    let task = inFlight[id]
    task?.cancel()
    _ = await task?.value
  }
}
