import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes entries (and moves downloaded blobs into `objects/`) off the engine actor, in groups.
///
/// Each write is the same read-merge-change-write under the cross-process commit lock that
/// ``AssetEngine/updateEntry(_:committing:_:)`` describes, but it runs on the blocking-I/O pool,
/// so the actor (events, commands, other refreshes) never waits behind `flock` or `fsync`. Writes
/// that arrive while a group is on disk form the next group, which takes the lock once and
/// flushes each folder once: eight downloads finishing together cost one `objects/` and one
/// `entries/` fsync instead of eight of each (group commit). A group holds at most one write per
/// asset, so a second write of the same asset reads the first one's result.
///
/// A group's files are made durable at once (``GroupFsync``: one `syncfs` for 4 files or more
/// while little else waits to be written, else their fsyncs side by side): the downloads' bytes
/// before the lock is taken, then the entry files under it. A download's bytes are flushed here rather than as it ends, so a
/// sync's flushes are shared by as many files as the group holds.
///
/// Durability: a download's bytes are flushed before they are moved into `objects/` (where
/// they may replace a durable copy of the same bytes), `objects/` before any entry names them,
/// every entry file before its rename, and no caller hears "committed" before the folder
/// holding the rename is fsynced.
///
/// Blobs a group pushes out (the old previous generation after a new download, a repaired
/// copy) are removed before the lock is released, and only when no entry on disk names them
/// (``CacheStore/removeUnnamedBlobs(_:)``): another process may have committed the same bytes.
actor EntryCommitter {
  /// One entry write.
  struct Write: Sendable {
    var id: String
    /// The engine's view of the entry when the write was asked for.
    var ours: CacheEntry
    /// What the engine last read from or wrote to the disk for it.
    var lastSynced: CacheEntry?
    /// A finished download to move into `objects/` with the entry.
    var blob: (sink: DownloadSink, sha256: String)?
    /// The change to apply to the merged entry.
    var change: @Sendable (inout CacheEntry) -> Void
  }

  /// What a write left on disk.
  struct Committed: Sendable {
    /// The entry as written.
    var entry: CacheEntry
    /// The entry as a reader decodes it now (dates lose their fractions in ISO 8601).
    var synced: CacheEntry
    /// The entry file's stamp after the write.
    var syncedStamp: BlobStamp?
  }

  /// The most writes in one group (bounds the time the commit lock is held).
  static let maxGroup = 64

  private let store: CacheStore
  private var pending:
    [(write: Write, reply: CheckedContinuation<Result<Committed, any Error>, Never>)] = []
  private var draining = false
  /// Groups written so far (tests check that concurrent writes share them).
  private(set) var groups = 0
  /// Writes waiting for the group on disk to finish.
  var waiting: Int { pending.count }

  init(store: CacheStore) {
    self.store = store
  }

  /// Queues `write` and returns once it is durable (or failed).
  func commit(_ write: Write) async -> Result<Committed, any Error> {
    await withCheckedContinuation { reply in
      pending.append((write, reply))
      if !draining {
        draining = true
        Task { await drain() }
      }
    }
  }

  private func drain() async {
    while !pending.isEmpty {
      var group: [(write: Write, reply: CheckedContinuation<Result<Committed, any Error>, Never>)] =
        []
      var later: [(write: Write, reply: CheckedContinuation<Result<Committed, any Error>, Never>)] =
        []
      var ids = Set<String>()
      for item in pending {
        if group.count < Self.maxGroup, ids.insert(item.write.id).inserted {
          group.append(item)
        } else {
          later.append(item)
        }
      }
      pending = later
      groups += 1
      let writes = group.map(\.write)
      let store = self.store
      let results: [Result<Committed, any Error>]
      do {
        results = try await Self.writeWhenTheLockIsFree(writes, store: store)
      } catch {
        results = writes.map { _ in .failure(error) }
      }
      for (item, result) in zip(group, results) { item.reply.resume(returning: result) }
    }
    draining = false
  }

  /// Writes one group once the commit lock is free, giving up after the store's lock timeout.
  ///
  /// While another process holds the lock this waits suspended, between tries on the
  /// blocking-I/O pool that take the lock only if it is free: a wait never holds one of that
  /// pool's threads (as many as the machine has cores), which every engine in the process needs
  /// for its reads, hashes and fsyncs.
  static func writeWhenTheLockIsFree(_ writes: [Write], store: CacheStore) async throws
    -> [Result<Committed, any Error>]
  {
    // The downloads' bytes first, once, however long the lock takes.
    let failed =
      writes.contains { $0.blob != nil }
      ? try await IOExecutor.run { flushDownloads(writes) } : [:]
    let flushed = writes.indices.filter { failed[$0] == nil }
    var written = try await writeFlushed(flushed.map { writes[$0] }, store: store).makeIterator()
    return writes.indices.map { index in
      failed[index].map { .failure($0) } ?? written.next() ?? unanswered(writes[index])
    }
  }

  /// What a write no step answered gets (none should: each step answers every write it is
  /// given).
  private static func unanswered(_ write: Write) -> Result<Committed, any Error> {
    .failure(StorageError(operation: "commit", path: write.id, code: EIO))
  }

  /// Writes one group whose downloads are flushed once the commit lock is free, giving up
  /// after the store's lock timeout.
  private static func writeFlushed(_ writes: [Write], store: CacheStore) async throws
    -> [Result<Committed, any Error>]
  {
    guard !writes.isEmpty else { return [] }
    let deadline = ContinuousClock.now + store.commitLockTimeout
    var pause = Duration.milliseconds(1)
    while true {
      if let results = try await IOExecutor.run({ write(writes, store: store, onlyIfFree: true) }) {
        return results
      }
      guard ContinuousClock.now < deadline else {
        let error = store.commitLockTimeoutError()
        return writes.map { _ in .failure(error) }
      }
      try? await Task.sleep(for: pause)
      pause = min(pause * 2, .milliseconds(50))
    }
  }

  /// Flushes the downloaded bytes of `writes` to disk at once (``GroupFsync``), before the
  /// lock is taken and any of them is moved into `objects/`: a move may replace a durable copy
  /// of the same bytes, so only a durable copy may take its place. Returns the failures, by
  /// index into `writes`: such a write is not committed.
  static func flushDownloads(_ writes: [Write]) -> [Int: any Error] {
    var failures: [Int: any Error] = [:]
    var files: [(index: Int, fd: Int32, path: String)] = []
    for (index, write) in writes.enumerated() {
      guard let blob = write.blob else { continue }
      do {
        // A descriptor of its own, flushed with the group's outside the sink's lock.
        files.append(
          try blob.sink.withPartial { partial in
            (index, try POSIX.duplicate(try partial.descriptor(), path: partial.path), partial.path)
          })
      } catch {
        failures[index] = error
      }
    }
    for (file, code) in zip(files, GroupFsync.sync(files.map(\.fd))) {
      Glibc.close(file.fd)
      guard code != 0 else { continue }
      failures[file.index] = StorageError(operation: "fsync", path: file.path, code: code)
    }
    return failures
  }

  /// Writes one group (its downloads flushed: ``flushDownloads(_:)``) under one commit lock; a
  /// failure of one write fails only that write,
  /// a failure to flush a folder fails every write that needed it. With `onlyIfFree`, nil
  /// (nothing written) when another process holds the lock; else waits for it (bounded).
  static func write(_ writes: [Write], store: CacheStore, onlyIfFree: Bool = false)
    -> [Result<Committed, any Error>]?
  {
    var results = [Result<Committed, any Error>?](repeating: nil, count: writes.count)
    func underTheLock() throws {
      var merged: [Int: CacheEntry] = [:]
      var pushedOut: [Int: Set<String>] = [:]
      var movedBlobs: [Int] = []
      // The writes whose entry has no file yet (a first download): written unnamed, linked in.
      var absent: Set<Int> = []
      for (index, write) in writes.enumerated() {
        do {
          let read = Result { try store.readEntry(write.id) }
          if case .success(nil) = read { absent.insert(index) }
          let disk = (try? read.get()) ?? nil
          var result = EntrySync.base(ours: write.ours, disk: disk, lastSynced: write.lastSynced)
          write.change(&result)
          // The blobs this write stops naming: what the disk named (and what this process
          // thought it named), less what the result names.
          pushedOut[index] = Set(
            [
              disk?.current?.sha256, disk?.previous?.sha256, write.ours.current?.sha256,
              write.ours.previous?.sha256,
            ].compactMap { $0 }
          ).subtracting([result.current?.sha256, result.previous?.sha256].compactMap { $0 })
          if let blob = write.blob {
            let stamp = try blob.sink.withPartial { partial in
              let stamp = try store.moveBlob(partial, sha256: blob.sha256)
              partial.markMoved()
              return stamp
            }
            movedBlobs.append(index)
            if result.current?.sha256 == blob.sha256 { result.current?.stamp = stamp }
          }
          merged[index] = result
        } catch {
          results[index] = .failure(error)
        }
      }
      var written: [Int] = []
      var readBack: [Int: CacheEntry] = [:]
      // Every entry fsynced before its rename, the group's fsyncs at once, and `objects/` with
      // them: an entry that names a blob moved here is renamed only once the folder is durable.
      let toWrite = merged.sorted(by: { $0.key < $1.key })
      let naming = Set(toWrite.indices.filter { movedBlobs.contains(toWrite[$0].key) })
      let new = Set(toWrite.indices.filter { absent.contains(toWrite[$0].key) })
      let writing = store.writeEntries(toWrite.map(\.value), objectsFor: naming, absent: new)
      for ((index, _), result) in zip(toWrite, writing) {
        switch result {
        case .success(let entry):
          readBack[index] = entry
          written.append(index)
        case .failure(let error):
          results[index] = .failure(error)
        }
      }
      if !written.isEmpty {
        do { try store.syncEntries() } catch {
          for index in written { results[index] = .failure(error) }
          written = []
        }
      }
      // Still under the lock: a blob no entry names any more goes, unless another process's
      // entry (or another of this group) names the same bytes.
      let unnamed = written.reduce(into: Set<String>()) { $0.formUnion(pushedOut[$1] ?? []) }
      if !unnamed.isEmpty { store.removeUnnamedBlobs(unnamed) }
      for index in written {
        guard let entry = merged[index] else { continue }
        let id = writes[index].id
        results[index] = .success(
          Committed(
            entry: entry, synced: readBack[index] ?? entry,
            syncedStamp: store.entryStamp(id)))
      }
    }
    do {
      if onlyIfFree {
        guard try store.withCommitLockIfFree(underTheLock) != nil else { return nil }
      } else {
        try store.withCommitLock(underTheLock)
      }
    } catch {
      return writes.indices.map { results[$0] ?? .failure(error) }
    }
    return writes.indices.map { results[$0] ?? unanswered(writes[$0]) }
  }
}
