import Foundation

/// A command that cannot be carried out (unknown id, nothing to roll back to, disk failure).
public struct CommandError: Error, Sendable, CustomStringConvertible {
  /// Why, in plain words.
  public var message: String
  public var description: String { message }
}

extension AssetEngine {
  /// Carries out a command from the dashboard or the CLI; failures are reported as log events.
  public func perform(_ command: AssetCommand) async {
    do {
      switch command {
      case .refresh(let id): _ = await refresh(id)
      case .refreshAll: _ = await refreshAll()
      case .resetToBundled(let id): try await resetToBundled(id)
      case .dropCache(let id): try await dropCache(id)
      case .rollback(let id): try await rollback(id)
      case .pauseAutoRefresh: pauseAutoRefresh()
      case .resumeAutoRefresh: resumeAutoRefresh()
      }
    } catch {
      log(nil, .error, "\(error)")
    }
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
    let dropped = [records[id]?.entry.current?.sha256, records[id]?.entry.previous?.sha256]
    do {
      let store = self.store
      try await IOExecutor.run { try store.withCommitLock { try store.removeEntry(id) } }
      records[id]?.synced = nil
    } catch {
      throw CommandError(message: "\(id): dropping the cache failed: \(error)")
    }
    records[id]?.entry = CacheEntry(id: id, appVersion: configuration.appVersion)
    if let definition = records[id]?.definition {
      records[id]?.entry.nextAttemptAt = nextScheduledCheck(definition, after: clock.now())
    }
    for case let sha? in dropped where !isBlobReferenced(sha) { store.removeBlob(sha) }
    wakeScheduler()
    publishChange(id)
    log(
      id, .info,
      records[id]?.definition.bundled == nil
        ? "cache dropped; nothing to serve" : "cache dropped; serving the bundled copy")
  }

  /// Goes back to the previous good generation (the current one becomes the previous).
  ///
  /// - Throws: ``CommandError`` when there is no intact previous generation.
  public func rollback(_ id: String) async throws {
    guard let record = records[id] else { throw CommandError(message: "no asset named \(id)") }
    guard let previous = record.entry.previous else {
      throw CommandError(message: "\(id): there is no previous generation to roll back to")
    }
    if let problem = store.verifyBlob(previous) {
      throw CommandError(message: "\(id): cannot roll back: \(problem)")
    }
    try await mutateEntry(id, verb: "roll back") { entry in
      entry.previous = entry.current
      entry.current = previous
      entry.lastError = nil
      entry.consecutiveFailures = 0
    }
    log(id, .info, "rolled back to \(previous.version ?? String(previous.sha256.prefix(8)))")
  }

  /// Stops automatic refreshes (manual ones still run).
  public func pauseAutoRefresh() {
    guard !lifecycle.paused else { return }
    lifecycle.paused = true
    publish(.engineChanged(info()))
    for id in order { publishChange(id) }
    log(nil, .info, "automatic refresh paused")
  }

  /// Restarts automatic refreshes.
  public func resumeAutoRefresh() {
    guard lifecycle.paused else { return }
    lifecycle.paused = false
    wakeScheduler()
    publish(.engineChanged(info()))
    for id in order { publishChange(id) }
    log(nil, .info, "automatic refresh resumed")
  }

  private func mutateEntry(
    _ id: String, verb: String, _ change: @escaping @Sendable (inout CacheEntry) -> Void
  ) async throws {
    guard records[id] != nil else { throw CommandError(message: "no asset named \(id)") }
    records[id]?.epoch &+= 1
    await cancelInFlight(id)
    do {
      try await updateEntry(id, change)
    } catch {
      throw CommandError(message: "\(id): \(verb) failed: \(error)")
    }
    wakeScheduler()
    publishChange(id)
  }

  private func cancelInFlight(_ id: String) async {
    guard let task = inFlight[id] else { return }
    task.cancel()
    _ = await task.value
  }
}
