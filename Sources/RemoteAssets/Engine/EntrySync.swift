import Foundation

/// Keeps one process's view of an entry coherent with what other processes (a CLI next to a
/// running dashboard, two apps sharing a cache) wrote to `entries/<id>.json`.
enum EntrySync {
  /// The entry this process should build on, given what is on disk now.
  ///
  /// When the disk still holds what this process last synced, its own view stands. Otherwise
  /// another process changed it: the payload it serves (current, previous, and the freshness and
  /// validators that belong to that payload) is adopted; this process's attempt bookkeeping
  /// (errors, failures, schedule) is kept.
  static func base(ours: CacheEntry, disk: CacheEntry?, lastSynced: CacheEntry?) -> CacheEntry {
    guard disk != lastSynced else { return ours }
    var merged = ours
    merged.current = disk?.current
    merged.previous = disk?.previous
    merged.checkedAt = disk?.checkedAt
    merged.serverTTL = disk?.serverTTL
    merged.serverFreshness = disk?.serverFreshness
    return merged
  }
}

extension AssetEngine {
  /// Changes an asset's entry under the commit lock: reads the disk entry, folds in what another
  /// process changed, applies `change`, optionally moves a download into `objects/`, and writes
  /// the result durably. The disk work runs off the actor, grouped with other writes
  /// (``EntryCommitter``); the actor goes on meanwhile.
  ///
  /// When the write fails, memory takes only the attempt bookkeeping (error, failure count,
  /// schedule, and freshness when no bytes were committed), never a new payload: what is served
  /// is always what the disk holds, and the failure stays visible on a full or read-only disk.
  ///
  /// - Throws: the storage error.
  @discardableResult
  func updateEntry(
    _ id: String, committing blob: (sink: DownloadSink, sha256: String)? = nil,
    _ change: @escaping @Sendable (inout CacheEntry) -> Void
  ) async throws -> CacheEntry {
    guard let record = records[id] else { throw CommandError(message: "no asset named \(id)") }
    let now = clock.now()
    let outcome = await committer.commit(
      EntryCommitter.Write(
        id: id, ours: record.entry, lastSynced: record.synced, blob: blob,
        change: { entry in
          let before = entry.previous
          change(&entry)
          // A generation that became previous now: its last use, for the disk budget.
          entry.noteRetirement(previousBefore: before, at: now)
        }))
    // The record as it is now: other work went on while the write was on disk.
    let before = records[id]?.entry ?? record.entry
    switch outcome {
    case .failure(let error):
      var failed = record.entry
      change(&failed)
      var kept = before
      kept.lastError = failed.lastError
      kept.consecutiveFailures = failed.consecutiveFailures
      kept.nextAttemptAt = failed.nextAttemptAt
      if blob == nil, kept.current == failed.current {
        kept.checkedAt = failed.checkedAt
        kept.serverTTL = failed.serverTTL
        kept.serverFreshness = failed.serverFreshness
      }
      records[id]?.entry = kept
      throw error
    case .success(let committed):
      let result = committed.entry
      records[id]?.entry = result
      if freshness.notes.removeValue(forKey: id) != nil { freshness.isDirty = true }
      records[id]?.synced = committed.synced
      records[id]?.syncedStamp = committed.syncedStamp
      // The blobs it pushed out were removed under the lock, if no entry on disk names them.
      budgetAfterCommit()
      return result
    }
  }

  /// Picks up entries other processes changed (a `drop` from the CLI while the dashboard runs),
  /// so what is served and shown follows the disk. Called by the scheduler about once a second.
  func reloadExternalChanges() {
    // Nothing written, replaced or removed in entries/ since the last look: nothing to read.
    guard external.folderChanged(store.entriesFolderStamp()) else { return }
    for id in order where inFlight[id] == nil {
      guard let record = records[id] else { continue }
      let stamp = store.entryStamp(id)
      guard ExternalChanges.mustRead(synced: record.syncedStamp, now: stamp) else { continue }
      let disk: CacheEntry?
      do {
        disk = try store.readEntry(id)
      } catch {
        continue  // unreadable right now: a start or the next write deals with it
      }
      records[id]?.syncedStamp = stamp
      guard disk != record.synced else { continue }
      if let current = disk?.current, store.verifyBlob(current, trustingStamp: true) != nil {
        continue
      }
      var entry = EntrySync.base(ours: record.entry, disk: disk, lastSynced: record.synced)
      if disk == nil { entry.nextAttemptAt = record.entry.nextAttemptAt }
      records[id]?.entry = entry
      records[id]?.synced = disk
      records[id]?.epoch &+= 1
      publishChange(id)
      log(id, .info, "changed by another process; now serving \(describeServed(id))")
    }
  }

  private func describeServed(_ id: String) -> String {
    guard let record = records[id] else { return "nothing" }
    if let current = record.entry.current {
      return current.version ?? String(current.sha256.prefix(8))
    }
    return record.definition.bundled == nil ? "nothing" : "the bundled copy"
  }
}
