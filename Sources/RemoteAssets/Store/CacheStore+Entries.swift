import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension CacheStore {
  // MARK: - Entries

  /// Reads an entry; `nil` when there is none.
  ///
  /// - Throws: a readable reason when the file exists but cannot be used.
  func readEntry(_ id: String) throws -> CacheEntry? {
    try readStampedEntry(id).entry.get()
  }

  /// Reads an entry as ``readEntry(_:)`` does, with the stamp of the file: from the `fstat` of
  /// the file it read, so a replacement after the read has another stamp and a later look
  /// notices it. One open and no second look for a start that reads thousands. A file that
  /// cannot be opened or is too large is looked at by name first and read again after that look
  /// (as every read did before): a good file renamed over it meanwhile is then read, or noticed
  /// later, never missed.
  func readStampedEntry(_ id: String) -> (entry: Result<CacheEntry?, any Error>, stamp: BlobStamp?)
  {
    guard CacheLayout.isID(id) else {
      return (.failure(StorageError(operation: "entry", path: id, code: EINVAL)), nil)
    }
    guard let entries = entriesFolder else { return (.success(nil), nil) }
    let read: (data: Data, info: stat)?
    do {
      read = try entries.readWithStatus(id + ".json", limit: Self.metadataLimit)
    } catch {
      let stamp = entryStamp(id)
      let again = Result {
        try entries.read(id + ".json", limit: Self.metadataLimit).map {
          try Self.decodeEntry($0, id: id)
        }
      }
      return (again, stamp)
    }
    guard let read else { return (.success(nil), nil) }
    return (Result { try Self.decodeEntry(read.data, id: id) }, BlobStamp(read.info))
  }

  /// Notes which blobs `entry`, read from its file at `stamp` (the read file's, or taken before
  /// the read), names, so
  /// a later sweep or blob removal finding the file still at that stamp need not read it again
  /// (``EntryBlobIndex``). A change after the stamp changes the stamp: never a stale answer.
  func noteEntryBlobs(_ id: String, stamp: BlobStamp?, entry: CacheEntry?) {
    guard let stamp, let entry else { return }
    entryBlobs.note(
      id + ".json", stamp: stamp,
      blobs: [entry.current?.sha256, entry.previous?.sha256].compactMap { $0 })
  }

  /// The entry on disk: `.some(nil)` when there is none, nil when it cannot be read.
  func entryIfReadable(_ id: String) -> CacheEntry?? {
    do { return .some(try readEntry(id)) } catch { return nil }
  }

  static func decodeEntry(_ data: Data, id: String) throws -> CacheEntry {
    do {
      // The hand-written codec reads what it is sure about; anything else goes to
      // JSONDecoder, whose value or error stands.
      let entry: CacheEntry
      if let fast = CacheEntryJSON.decode(data) {
        entry = fast
      } else {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = ISO8601Time.decodingStrategy
        entry = try decoder.decode(CacheEntry.self, from: data)
      }
      let hashes = [entry.current?.sha256, entry.previous?.sha256].compactMap { $0 }
      guard hashes.allSatisfy(SHA256Text.isValid) else {
        throw CorruptEntry(reason: "entry metadata names an invalid blob hash")
      }
      guard entry.formatVersion == CacheEntry.formatVersion, entry.id == id else {
        throw CorruptEntry(
          reason: "entry format \(entry.formatVersion) for \(entry.id) is not understood")
      }
      return entry
    } catch let error as CorruptEntry {
      throw error
    } catch {
      throw CorruptEntry(reason: "entry metadata is unreadable (\(data.count) bytes)")
    }
  }

  /// A metadata file that is present but unusable.
  struct CorruptEntry: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
  }

  /// The stamp of an entry file (nil when absent), to notice another process's write without
  /// reading it.
  func entryStamp(_ id: String) -> BlobStamp? {
    guard CacheLayout.isID(id), let entries = entriesFolder else { return nil }
    return (try? entries.status(id + ".json")).flatMap { $0.map(BlobStamp.init) }
  }

  /// The stamp of the `entries/` folder: any entry written, replaced or removed changes it.
  func entriesFolderStamp() -> BlobStamp? {
    guard let entries = entriesFolder else { return nil }
    var info = stat()
    guard fstat(entries.fd, &info) == 0 else { return nil }
    return BlobStamp(info)
  }

  /// Writes an entry durably. This is the commit point. Call it holding the commit lock.
  ///
  /// With `syncingFolder` false the entry file is fsynced but `entries/` is not: the caller
  /// runs ``syncEntries()`` once for a group before reporting any of them committed.
  @discardableResult
  func writeEntry(_ entry: CacheEntry, syncingFolder: Bool = true) throws -> CacheEntry {
    guard CacheLayout.isID(entry.id) else {
      throw StorageError(operation: "entry", path: entry.id, code: EINVAL)
    }
    let data = try Self.encodeEntry(entry)
    try folder(entriesFolder, CacheLayout.entries).write(
      data, as: entry.id + ".json", durably: true, syncingFolder: syncingFolder)
    // What a reader of the file gets (dates in whole seconds), from the bytes in hand.
    return (try? Self.decodeEntry(data, id: entry.id)) ?? entry
  }

  /// An entry file's bytes: pretty-printed JSON, keys sorted, as `JSONEncoder` wrote them.
  ///
  /// - Throws: `EncodingError` when a number cannot be written (infinity, NaN).
  static func encodeEntry(_ entry: CacheEntry) throws -> Data {
    if let data = CacheEntryJSON.encode(entry, pretty: true) { return data }
    // Only a number JSON cannot carry gets here: JSONEncoder throws its usual error for it.
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = ISO8601Time.encodingStrategy
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return try encoder.encode(entry)
  }

  /// Writes a group of entries as ``writeEntry(_:syncingFolder:)`` with `syncingFolder` false
  /// does, their fsyncs at once (``DirectoryHandle/writeGroup(_:flushing:before:absent:)``); the
  /// caller flushes `entries/` (``syncEntries()``) before it reports any written. Each result is
  /// the entry as a reader decodes it, or why it was not written.
  ///
  /// `objectsFor`: the entries (indices into `entries`) that name blobs just moved into
  /// `objects/`. The folder is then flushed in the same wave of fsyncs as the entry files
  /// (one wait, not two in a row), and none of those entries is renamed into place unless the
  /// flush succeeded: each fails with the flush's error instead.
  ///
  /// `absent`: the entries (indices) the caller found no file for, holding the commit lock:
  /// each is written unnamed and linked in
  /// (``DirectoryHandle/writeGroup(_:flushing:before:absent:)``).
  func writeEntries(
    _ entries: [CacheEntry], objectsFor dependents: Set<Int> = [], absent: Set<Int> = []
  ) -> [Result<CacheEntry, any Error>] {
    var results = [Result<CacheEntry, any Error>?](repeating: nil, count: entries.count)
    var files: [(data: Data, name: String)] = []
    var indices: [Int] = []
    for (index, entry) in entries.enumerated() {
      do {
        guard CacheLayout.isID(entry.id) else {
          throw StorageError(operation: "entry", path: entry.id, code: EINVAL)
        }
        files.append((try Self.encodeEntry(entry), entry.id + ".json"))
        indices.append(index)
      } catch {
        results[index] = .failure(error)
      }
    }
    if !files.isEmpty {
      do {
        let objects = dependents.isEmpty ? nil : try folder(objectsFolder, CacheLayout.objects)
        let slots = Set(indices.indices.filter { dependents.contains(indices[$0]) })
        let new = Set(indices.indices.filter { absent.contains(indices[$0]) })
        let failures = try folder(entriesFolder, CacheLayout.entries).writeGroup(
          files, flushing: objects, before: slots, absent: new
        ).failures
        for (slot, index) in indices.enumerated() {
          if let failure = failures[slot] {
            results[index] = .failure(failure)
          } else {
            // What a reader of the file gets (dates in whole seconds), from the bytes in hand.
            let entry = entries[index]
            results[index] = .success(
              (try? Self.decodeEntry(files[slot].data, id: entry.id)) ?? entry)
          }
        }
      } catch {
        for index in indices { results[index] = .failure(error) }
      }
    }
    return results.map { $0 ?? .failure(StorageError(operation: "entry", path: "", code: EIO)) }
  }

  /// Flushes `entries/` (the renames of a group of entry writes).
  func syncEntries() throws { try folder(entriesFolder, CacheLayout.entries).sync() }

  /// Writes an entry durably under the commit lock (two writers never share the temp file).
  @discardableResult
  func commitEntry(_ entry: CacheEntry) throws -> CacheEntry {
    try withCommitLock { try writeEntry(entry) }
  }

  /// Writes an entry durably under the commit lock; with `expected`, only when the entry on
  /// disk is still that one (another process may have replaced it meanwhile), else nothing is
  /// written and the answer is nil.
  func commitEntry(_ entry: CacheEntry, over expected: CacheEntry?) throws -> CacheEntry? {
    try withCommitLock {
      if let expected {
        guard case .some(let disk?) = entryIfReadable(entry.id), disk == expected else {
          return nil
        }
      }
      return try writeEntry(entry)
    }
  }

  /// Removes an entry durably (no-op when absent). Call it holding the commit lock.
  func removeEntry(_ id: String) throws {
    guard CacheLayout.isID(id) else {
      throw StorageError(operation: "entry", path: id, code: EINVAL)
    }
    let entries = try folder(entriesFolder, CacheLayout.entries)
    if entries.remove(id + ".json") { try entries.sync() }
  }
}
