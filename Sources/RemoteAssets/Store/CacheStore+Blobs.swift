import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension CacheStore {
  // MARK: - Blobs

  /// Moves a finished, hashed and fsynced partial into `objects/<sha256>`, without flushing
  /// `objects/`: the folder is flushed before anything names the blob durably (the commit's
  /// ``writeEntries(_:objectsFor:absent:)`` does it in the entry files' wave of fsyncs). The
  /// blob is named by its hash, so committing the same bytes twice is harmless.
  ///
  /// An unnamed partial is linked in as `<sha256>`. Where that name is taken (the same bytes,
  /// committed by another asset or process, or a damaged copy of them), it replaces the file
  /// there as a named partial does: named in `tmp/`, then renamed over it.
  ///
  /// - Returns: the blob's stamp after the move (what a later start compares with).
  func moveBlob(_ partial: PartialFile, sha256: String) throws -> BlobStamp? {
    guard SHA256Text.isValid(sha256) else {
      throw StorageError(operation: "blob", path: sha256, code: EINVAL)
    }
    let objects = try folder(objectsFolder, CacheLayout.objects)
    if partial.isUnnamed {
      let fd = try partial.descriptor()
      var taken: StorageError?
      do { try objects.linkUnnamed(fd, as: sha256) } catch { taken = error }
      guard let taken else {
        // The file linked is the descriptor's: its stamp is the name's.
        var info = stat()
        return fstat(fd, &info) == 0 ? BlobStamp(info) : nil
      }
      guard taken.code == EEXIST else { throw taken }
      try partial.giveName()
    }
    // The bytes hashed are the descriptor's: the name must still be that file.
    guard partial.isStillNamed else {
      throw StorageError(
        operation: "blob (the partial's name was taken by another file)",
        path: partial.folder.child(partial.name), code: ESTALE)
    }
    try partial.folder.rename(partial.name, to: objects, as: sha256)
    return (try? objects.status(sha256)).flatMap { $0.map(BlobStamp.init) }
  }

  /// Removes those of `candidates` (blobs a commit or a drop pushed out) that no entry on disk
  /// names; returns how many were removed. Call it holding the commit lock: every commit names
  /// its blob under that lock, so a blob found unnamed here stays unnamed until it is gone, and
  /// a blob another process committed meanwhile (the same bytes downloaded again, or another
  /// asset with the same content) is never taken. An entry that cannot be read might name
  /// anything: then nothing is removed, and the sweep decides later. Not flushed: a crash can
  /// bring a name back, and the next start's sweep removes it again.
  @discardableResult
  func removeUnnamedBlobs(_ candidates: Set<String>) -> Int {
    guard let objects = objectsFolder, let entries = entriesFolder, !isReadOnly else { return 0 }
    var doomed = candidates.filter {
      SHA256Text.isValid($0) && ((try? objects.status($0)) ?? nil) != nil
    }
    guard !doomed.isEmpty, let names = try? entries.list() else { return 0 }
    for (name, _) in names {
      guard let id = CacheLayout.entryID(name) else { continue }
      // Vanished since the listing: names nothing.
      guard let info = try? entries.status(name) else { continue }
      let stamp = BlobStamp(info)
      let named: [String]
      if let known = entryBlobs.blobs(of: name, stamp: stamp) {
        named = known
      } else {
        // Present but unreadable: it might name anything, so keep everything.
        guard let entry = try? readEntry(id) else { return 0 }
        named = [entry.current?.sha256, entry.previous?.sha256].compactMap { $0 }
        // Noted under the stamp seen before the read: a change since then changes the stamp.
        entryBlobs.note(name, stamp: stamp, blobs: named)
      }
      for sha in named { doomed.remove(sha) }
      if doomed.isEmpty { return 0 }
    }
    // A blob's chunk index goes with it.
    for sha in doomed { objects.remove(CacheLayout.chunkIndexName(of: sha)) }
    return doomed.reduce(0) { $0 + (objects.remove($1) ? 1 : 0) }
  }

  /// The stamp of a blob's file as it is now; nil when it is missing.
  func blobFileStamp(_ sha256: String) -> BlobStamp? {
    guard SHA256Text.isValid(sha256), let objects = objectsFolder,
      let info = (try? objects.status(sha256)) ?? nil
    else { return nil }
    let stamp = BlobStamp(info)
    objectSizes.note(sha256, inode: stamp.inode, size: stamp.size)
    return stamp
  }

  /// Looks again, holding the commit lock, at the generation in `slot` of `id`'s entry on disk:
  /// whether it is still `copy` (``Generation/isSameCopy(as:)``) and, if so, whether its blob
  /// passes ``verifyBlob(_:trustingStamp:file:)``.
  ///
  /// - Throws: ``StorageError`` when the cache is read-only, the lock times out, or the entry
  ///   cannot be read.
  func recheck(_ id: String, _ slot: GenerationSlot, copy: Generation, trustingStamp: Bool)
    throws -> CopyCheck
  {
    try withCommitLock {
      guard let disk = try readEntry(id)?[slot], disk.isSameCopy(as: copy) else {
        return .changed
      }
      let file = blobFileStamp(disk.sha256)
      guard let problem = verifyBlob(disk, trustingStamp: trustingStamp, file: file) else {
        return .intact
      }
      return .damaged(problem: problem, file: file)
    }
  }

  /// Opens a blob for reading (never through a symlink); the caller closes the descriptor.
  func openBlob(_ sha256: String) throws -> Int32 {
    guard SHA256Text.isValid(sha256) else {
      throw StorageError(operation: "blob", path: sha256, code: EINVAL)
    }
    return try folder(objectsFolder, CacheLayout.objects).openFile(sha256, O_RDONLY)
  }

  /// The bytes of a blob.
  func readBlob(_ sha256: String) throws -> Data {
    let fd = try openBlob(sha256)
    defer { close(fd) }
    return try FileDigest.readAll(fd, path: objectPath(sha256))
  }

  /// Checks a blob against its expected size and hash; returns the problem, or nil when intact.
  ///
  /// With `trustingStamp`, a blob whose stamp still matches the one recorded at commit is taken
  /// as intact without being read (a start with a 1 GiB model does not re-hash it); any
  /// difference falls back to the full check. ``AssetEngine/verify(_:)`` always reads. `file`
  /// is the blob file's stamp when the caller has just taken it (``blobFileStamp(_:)``): it is
  /// not taken again.
  func verifyBlob(
    _ generation: Generation, trustingStamp: Bool = false, file: BlobStamp? = nil
  ) -> String? {
    // The stamp alone first: a start of thousands of assets stats each blob instead of opening,
    // stat-ing and closing it. The stamp holds the size, so a match says the size is right too.
    if trustingStamp, let stamp = generation.stamp, stamp.size == generation.size,
      (file ?? blobFileStamp(generation.sha256)) == stamp
    {
      return nil
    }
    let fd: Int32
    do {
      fd = try openBlob(generation.sha256)
    } catch let error as StorageError where error.code == ENOENT {
      return "the cached blob \(generation.sha256.prefix(8)) is missing"
    } catch {
      return "the cached blob \(generation.sha256.prefix(8)) cannot be read (\(error))"
    }
    defer { close(fd) }
    var info = stat()
    _ = fstat(fd, &info)
    guard Int64(info.st_size) == generation.size else {
      return "the cached blob has \(info.st_size) bytes, expected \(generation.size)"
    }
    if trustingStamp, let stamp = generation.stamp, stamp == BlobStamp(info) { return nil }
    hashes.add(1)
    guard let digest = try? FileDigest.sha256(fd: fd), digest == generation.sha256 else {
      return "the cached blob's SHA-256 does not match its metadata"
    }
    return nil
  }

  /// SHA-256 of a file outside the cache (a bundled copy), read in 1 MiB chunks.
  static func sha256(ofFile path: String) throws -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    if fd < 0 { throw StorageError(operation: "open", path: path, code: errno) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      throw StorageError(operation: "open (not a regular file)", path: path, code: EINVAL)
    }
    return try FileDigest.sha256(fd: fd)
  }
}
