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
  /// process changed, applies `change`, optionally moves a blob into `objects/`, and writes the
  /// result durably. Memory is updated even when the write fails, so schedules and failure counts
  /// hold on a full or read-only disk.
  ///
  /// - Throws: the storage error (memory is updated all the same).
  @discardableResult
  func updateEntry(
    _ id: String, committing blob: (path: String, sha256: String)? = nil,
    _ change: (inout CacheEntry) -> Void
  ) throws -> CacheEntry {
    guard let record = records[id] else { throw CommandError(message: "no asset named \(id)") }
    var result = record.entry
    do {
      try store.withCommitLock {
        let disk = (try? store.readEntry(id)) ?? nil
        result = EntrySync.base(ours: record.entry, disk: disk, lastSynced: record.synced)
        change(&result)
        if let blob { _ = try store.commitBlob(partialPath: blob.path, sha256: blob.sha256) }
        try store.writeEntry(result)
      }
    } catch {
      records[id]?.entry = result
      throw error
    }
    records[id]?.entry = result
    // What the disk holds now, as a reader decodes it (dates lose their fractions in ISO 8601),
    // so the next comparison with the disk sees no change where there was none.
    records[id]?.synced = (try? store.readEntry(id)) ?? result
    return result
  }

  /// Picks up entries other processes changed (a `drop` from the CLI while the dashboard runs),
  /// so what is served and shown follows the disk. Called by the scheduler about once a second.
  func reloadExternalChanges() {
    for id in order where inFlight[id] == nil {
      guard let record = records[id] else { continue }
      let disk: CacheEntry?
      do {
        disk = try store.readEntry(id)
      } catch {
        continue  // unreadable right now: a start or the next write deals with it
      }
      guard disk != record.synced else { continue }
      if let current = disk?.current, store.verifyBlob(current) != nil { continue }
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
