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
    merged.revalidation = disk?.revalidation  // what the other process learnt about the server
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
    guard let record = core.records[id] else { throw CommandError(message: "no asset named \(id)") }
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
    let before = core.records[id]?.entry ?? record.entry
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
      core.records[id]?.entry = kept
      throw error
    case .success(let committed):
      let result = committed.entry
      core.records[id]?.entry = result
      if core.freshness.notes.removeValue(forKey: id) != nil { core.freshness.isDirty = true }
      core.records[id]?.synced = committed.synced
      core.records[id]?.syncedStamp = committed.syncedStamp
      // The blobs it pushed out were removed under the lock, if no entry on disk names them.
      budgetAfterCommit()
      return result
    }
  }

  /// Picks up entries other processes changed (a `drop` from the CLI while the dashboard runs),
  /// so what is served and shown follows the disk. Called by the scheduler about once a second.
  ///
  /// The entry files are looked at and read off the actor (at fleet size, every commit changes
  /// the folder, and each look stats thousands of files); the actor then takes what was read,
  /// unless this process wrote the entry or started a refresh of it meanwhile.
  func reloadExternalChanges() async {
    // Nothing written, replaced or removed in entries/ since the last look: nothing to read.
    guard core.external.folderChanged(store.entriesFolderStamp()) else { return }
    let looks = core.order.compactMap { id -> ExternalLook? in
      guard inFlight[id] == nil, let record = core.records[id] else { return nil }
      return ExternalLook(id: id, synced: record.syncedStamp)
    }
    let store = self.store
    let found = await Self.offActor { looks.compactMap { $0.read(store) } }
    for read in found {
      // Written by this process, or being refreshed, since the look began: ours is newer.
      guard inFlight[read.id] == nil, let record = core.records[read.id],
        record.syncedStamp == read.synced
      else { continue }
      core.records[read.id]?.syncedStamp = read.stamp
      guard read.entry != record.synced, read.blobIntact else { continue }
      var entry = EntrySync.base(ours: record.entry, disk: read.entry, lastSynced: record.synced)
      if read.entry == nil { entry.nextAttemptAt = record.entry.nextAttemptAt }
      core.records[read.id]?.entry = entry
      core.records[read.id]?.synced = read.entry
      core.records[read.id]?.epoch &+= 1
      publishChange(read.id)
      log(read.id, .info, "changed by another process; now serving \(describeServed(read.id))")
    }
  }

  private func describeServed(_ id: String) -> String {
    guard let record = core.records[id] else { return "nothing" }
    if let current = record.entry.current {
      return current.version ?? String(current.sha256.prefix(8))
    }
    return record.definition.bundled == nil ? "nothing" : "the bundled copy"
  }
}

/// One entry file to look at for another process's change: the stamp this process last synced.
struct ExternalLook: Sendable {
  var id: String
  var synced: BlobStamp?

  /// What the file holds now, when it changed since `synced` and could be read.
  struct Read: Sendable {
    var id: String
    var synced: BlobStamp?
    var stamp: BlobStamp?
    var entry: CacheEntry?
    /// Whether the blob the entry names is there, whole (by its stamp); a half-made change is
    /// left for the next look.
    var blobIntact: Bool
  }

  /// Stats the entry file and reads it when it changed (nil: unchanged, or unreadable right
  /// now, which a start or the next write deals with). Blocking I/O: run off the actor.
  func read(_ store: CacheStore) -> Read? {
    let stamp = store.entryStamp(id)
    guard ExternalChanges.mustRead(synced: synced, now: stamp) else { return nil }
    let entry: CacheEntry?  // nil: removed (a drop)
    do {
      entry = try store.readEntry(id)
    } catch {
      return nil
    }
    let intact = entry?.current.map { store.verifyBlob($0, trustingStamp: true) == nil } ?? true
    return Read(id: id, synced: synced, stamp: stamp, entry: entry, blobIntact: intact)
  }
}
