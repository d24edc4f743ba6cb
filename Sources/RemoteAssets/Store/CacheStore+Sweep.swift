import Foundation

extension CacheStore {
  // MARK: - Sweep

  /// What a sweep removed, for logs and tests.
  struct SweepReport: Equatable {
    var partials = 0
    var orphanedResumes = 0
    var temps = 0
    var blobs = 0
    /// Chunk indexes (`<sha>.chunks`) removed because their blob was gone or went.
    var chunkIndexes = 0
    /// The budget's work, when a limit was given.
    var budget: BudgetReport? = nil
  }

  /// What the disk budget found and did.
  struct BudgetReport: Equatable {
    /// The cache's size before the budget evicted anything (after the leftovers went).
    var bytesBefore: Int64
    /// Its size now.
    var bytes: Int64
    /// Configured assets whose `previous` went: the copy evicted and the entry written without it.
    var droppedPrevious: [String: DroppedPrevious] = [:]
    /// Unconfigured assets whose entry and blobs went.
    var removedEntries: [String] = []
    /// Blobs removed (with their chunk indexes).
    var blobs = 0
    /// Whether the cache fits its limit now (false: the served copies alone exceed it).
    var meetsLimit = true
  }

  /// A rollback copy the budget evicted.
  struct DroppedPrevious: Equatable {
    /// The copy's SHA-256.
    var sha256: String
    /// The entry as written without it.
    var entry: CacheEntry
  }

  /// The disk budget a sweep applies.
  struct Budget: Sendable, Equatable {
    /// The config's `cacheLimit`; nil measures only.
    var limit: Int64?
    /// The assets configured now: an entry of any other asset may be evicted whole. Nil when
    /// the engine knows only some assets (a one-asset command): every entry then counts as
    /// configured, and only rollback copies may go.
    var configured: Set<String>?
    /// The blobs this process serves now (its records' current copies): never evicted, even
    /// when the entries on disk moved on (another process committed since this one read them).
    var served: Set<String> = []
  }

  /// Removes, by name only, what the engine left behind: partials no live writer holds, kept
  /// partials nobody can resume, interrupted temp files, blobs no entry names and chunk indexes
  /// whose blob is gone; then, with a `budget`, measures the cache and evicts what
  /// ``EvictionPlan`` picks while it is over its limit. Files the engine does not recognise are
  /// never touched. Skipped (nil) when another process holds the lock or the cache is read-only.
  ///
  /// - Parameters:
  ///   - keep: hashes still referenced in memory (current and previous generations).
  ///   - resumableIDs: assets whose kept partials may be resumed.
  ///   - leftovers: whether to remove leftovers (partials, temps, unnamed blobs); false runs the
  ///     budget alone (after a commit, while downloads may be under way).
  func sweep(
    keep: Set<String>, resumableIDs: Set<String> = [], budget: Budget? = nil,
    leftovers: Bool = true
  ) throws -> SweepReport? {
    guard let lock, let tmp = tmpFolder, let objects = objectsFolder, let entries = entriesFolder,
      let rootFolder, !isReadOnly
    else { return nil }
    return try lock.withLockIfFree {
      var report = SweepReport()
      var keep = keep
      var onDisk: [String: CacheEntry] = [:]
      var unreadable = false
      // Without a limit the budget needs no entry, only the blobs they name: an entry file
      // unchanged since this process read it (same stamp) is not read again (``EntryBlobIndex``;
      // a start has just read them all).
      let needsEntries = budget?.limit != nil
      // The entry files' sizes as these looks found them, for the budget's measure.
      var entrySizes: [String: Int64] = [:]
      for (name, _) in try entries.list() {
        if let id = CacheLayout.entryID(name) {
          let info = needsEntries ? nil : (try? entries.status(name)) ?? nil
          if let info, let named = entryBlobs.blobs(of: name, stamp: BlobStamp(info)) {
            keep.formUnion(named)
            entrySizes[name] = Int64(info.st_size)
            continue
          }
          let (read, stamp) = readStampedEntry(id)
          guard case .success(let entry?) = read else {
            unreadable = true
            continue
          }
          if let stamp { entrySizes[name] = stamp.size }
          noteEntryBlobs(id, stamp: stamp, entry: entry)
          onDisk[id] = entry
          if let sha = entry.current?.sha256 { keep.insert(sha) }
          if let sha = entry.previous?.sha256 { keep.insert(sha) }
        } else if leftovers, Self.isLeftoverTemp(name, of: { CacheLayout.entryID($0) != nil }) {
          if entries.remove(name) { report.temps += 1 }
        }
      }
      if leftovers {
        removeLeftovers(tmp: tmp, root: rootFolder, resumableIDs: resumableIDs, into: &report)
      }
      var blobNames = Set<String>()
      var indexNames = Set<String>()
      for (name, _) in try objects.list() {
        if CacheLayout.isObjectName(name) {
          if leftovers, !keep.contains(name) {
            if objects.remove(name) { report.blobs += 1 }
          } else {
            blobNames.insert(name)
          }
        } else if CacheLayout.chunkIndexBlob(name) != nil {
          indexNames.insert(name)
        } else if leftovers, CacheLayout.isChunkIndexTemp(name), !UniqueSuffix.namedHere(name) {
          if objects.remove(name) { report.temps += 1 }  // a chunk index's interrupted write
        }
      }
      // A chunk index goes with its blob; one whose blob is missing indexes nothing (only in a
      // full sweep: one written just before its blob's commit is not taken for a leftover).
      for name in indexNames where leftovers {
        guard let sha = CacheLayout.chunkIndexBlob(name), !blobNames.contains(sha) else { continue }
        if objects.remove(name) { report.chunkIndexes += 1 }
      }
      guard let budget else { return report }
      report.budget = try applyBudget(
        budget, entries: onDisk, canEvict: !unreadable, blobNames: blobNames,
        entrySizes: entrySizes, into: &report)
      return report
    }
  }

  /// Whether `name` is an interrupted write of a file `file` accepts, and not one this process
  /// may still be writing (``UniqueSuffix/namedHere(_:)``).
  private static func isLeftoverTemp(_ name: String, of file: (String) -> Bool) -> Bool {
    CacheLayout.isWriteTemp(name, of: file) && !UniqueSuffix.namedHere(name)
  }

  /// Partials, kept partials nobody can resume, and interrupted temps in `tmp/` and the root.
  private func removeLeftovers(
    tmp: DirectoryHandle, root: DirectoryHandle, resumableIDs: Set<String>,
    into report: inout SweepReport
  ) {
    for (name, _) in (try? root.list()) ?? []
    where Self.isLeftoverTemp(name, of: CacheLayout.isRootTempTarget) {
      if root.remove(name) { report.temps += 1 }
    }
    let tmpNames = Set(((try? tmp.list()) ?? []).map(\.name))
    for name in tmpNames {
      switch CacheLayout.tmpName(name) {
      case nil:
        continue  // not ours: never touched
      case .partial:
        if tmp.removeIfUnlocked(name) { report.partials += 1 }
      case .resumePart(let id):
        let recorded = tmpNames.contains(id + ".resume.json")
        if !(recorded && resumableIDs.contains(id)), tmp.removeIfUnlocked(name) {
          report.orphanedResumes += 1
        }
      case .resumeRecord(let id):
        if !(tmpNames.contains(id + ".resume.part") && resumableIDs.contains(id)),
          tmp.remove(name)
        {
          report.orphanedResumes += 1
        }
      case .resumeRecordTemp:
        // One this process is writing (a checkpoint beside this sweep) is not a leftover.
        if !UniqueSuffix.namedHere(name), tmp.remove(name) { report.temps += 1 }
      case .runLock:
        tmp.removeIfUnlocked(name)  // the run is over (its process held it until it ended)
      }
    }
  }

  /// The bytes (sizes from `fstatat`) of the files in `folder` whose names `known` accepts: the
  /// total, and each file's size when `each` is asked for (the budget's plan needs them; a
  /// measure does not). A file listed in `found` (sizes the caller's own looks found, under the
  /// same lock), or in `seen` at the inode the listing gives, is not looked at again; a file
  /// looked at is noted in `seen`, which forgets the files no longer listed.
  private func bytes(
    in folder: DirectoryHandle?, each: Bool, found: [String: Int64] = [:],
    seen: ObjectSizeIndex? = nil, known: (String) -> Bool
  ) -> (total: Int64, each: [String: Int64]) {
    guard let folder, let names = try? folder.listWithInodes() else { return (0, [:]) }
    if let seen, seen.count > names.count { seen.keep(only: Set(names.map(\.name))) }
    var total: Int64 = 0
    var sizes: [String: Int64] = [:]
    for (name, isFile, inode) in names where isFile && known(name) {
      let size: Int64
      if let known = found[name] ?? seen?.size(of: name, inode: inode) {
        size = known
      } else if let info = try? folder.status(name) {
        size = Int64(info.st_size)
        seen?.note(name, inode: UInt64(info.st_ino), size: size)
      } else {
        continue
      }
      total += size
      if each { sizes[name] = size }
    }
    return (total, sizes)
  }

  /// How much disk the cache takes: every file the engine made, in `objects/` (blobs and
  /// chunk indexes), `entries/`, `tmp/` (partials, kept ones too) and the root (manifest,
  /// journals), and what this store has written into downloads without a name yet. Reads no
  /// entry; takes no lock.
  func measure() -> Int64 { usage(each: false).total }

  private func usage(each: Bool = true, entrySizes: [String: Int64] = [:]) -> (
    total: Int64, objects: [String: Int64], entries: [String: Int64]
  ) {
    let objects = bytes(in: objectsFolder, each: each, seen: objectSizes) {
      CacheLayout.isKnown($0, in: CacheLayout.objects)
    }
    let entries = bytes(in: entriesFolder, each: each, found: entrySizes) {
      CacheLayout.isKnown($0, in: CacheLayout.entries)
    }
    let tmp = bytes(in: tmpFolder, each: false) { CacheLayout.isKnown($0, in: CacheLayout.tmp) }
    let root = bytes(in: rootFolder, each: false) {
      CacheLayout.isRootName($0)
        && ![CacheLayout.tmp, CacheLayout.objects, CacheLayout.entries]
          .contains($0)
    }
    let unnamed = Int64(unnamedBytes.count)
    return (
      objects.total + entries.total + tmp.total + root.total + unnamed, objects.each, entries.each
    )
  }

  /// Measures the cache and evicts what the plan picks. Call it holding the commit lock.
  private func applyBudget(
    _ budget: Budget, entries onDisk: [String: CacheEntry], canEvict: Bool,
    blobNames: Set<String>, entrySizes: [String: Int64], into report: inout SweepReport
  ) throws -> BudgetReport {
    let (total, objectBytes, entryBytes) = usage(entrySizes: entrySizes)
    var result = BudgetReport(bytesBefore: total, bytes: total)
    guard let limit = budget.limit else { return result }
    var kept = budget.served
    var candidates: [EvictionPlan.Candidate] = []
    for (id, entry) in onDisk {
      if budget.configured?.contains(id) ?? true {
        if let sha = entry.current?.sha256 { kept.insert(sha) }
        if let previous = entry.previous, let usedAt = entry.previousRetiredAt {
          candidates.append(
            .init(kind: .previous(id: id), usedAt: usedAt, blobs: [previous.sha256]))
        }
      } else {
        let blobs = Set([entry.current?.sha256, entry.previous?.sha256].compactMap { $0 })
        candidates.append(
          .init(
            kind: .unconfigured(id: id), usedAt: entry.lastUsedAt ?? .distantPast, blobs: blobs,
            ownBytes: entryBytes[id + ".json"] ?? 0))
      }
    }
    var blobBytes: [String: Int64] = [:]
    for sha in blobNames {
      blobBytes[sha] =
        (objectBytes[sha] ?? 0) + (objectBytes[CacheLayout.chunkIndexName(of: sha)] ?? 0)
    }
    // An entry that cannot be read might name anything: evict nothing (measured all the same).
    guard canEvict else {
      result.meetsLimit = total <= limit
      return result
    }
    let plan = EvictionPlan.make(
      total: total, limit: limit, candidates: candidates, kept: kept, blobBytes: blobBytes)
    guard !plan.evict.isEmpty else {
      result.meetsLimit = plan.meetsLimit
      return result
    }
    let entriesFolder = try folder(entriesFolder, CacheLayout.entries)
    for kind in plan.evict {
      switch kind {
      case .previous(let id):
        guard var entry = onDisk[id], let sha = entry.previous?.sha256 else { continue }
        entry.previous = nil
        result.droppedPrevious[id] = DroppedPrevious(
          sha256: sha, entry: try writeEntry(entry, syncingFolder: false))
      case .unconfigured(let id):
        if entriesFolder.remove(id + ".json") { result.removedEntries.append(id) }
      }
    }
    // The entries no longer name them (the commit point) before the blobs go.
    try entriesFolder.sync()
    let objects = try folder(objectsFolder, CacheLayout.objects)
    for sha in plan.blobs {
      if objects.remove(sha) { result.blobs += 1 }
      if objects.remove(CacheLayout.chunkIndexName(of: sha)) { report.chunkIndexes += 1 }
    }
    result.removedEntries.sort()
    result.bytes = usage(each: false).total
    result.meetsLimit = result.bytes <= limit
    return result
  }
}
