import Crypto
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The on-disk cache: `tmp/` partials, immutable `objects/<sha256>` blobs, `entries/<id>.json`
/// metadata, `.lock` (never deleted) for `flock`, and the `CACHEDIR.TAG` ownership marker.
///
/// Every file operation goes through the folders' descriptors (``DirectoryHandle``) without
/// following symlinks; see ``CacheLayout`` for every name the store makes, which are the only
/// names it ever deletes. Readers need no lock: blobs never change and entries are replaced by
/// atomic rename.
///
/// A cache that cannot be written (a read-only mount, a folder of another user) opens read-only:
/// intact copies are served, nothing is written, and ``isReadOnly`` says so.
package struct CacheStore: Sendable {
  /// The cache root.
  public let root: URL
  /// Whether the cache cannot be written: nothing is committed, swept or kept for resume.
  public let isReadOnly: Bool
  /// Why the cache is read-only, when it is.
  public let readOnlyReason: String?
  /// Whether this open wrote the ownership marker into a folder laid out by an older release.
  let adopted: Bool

  let rootFolder: DirectoryHandle?
  let tmpFolder: DirectoryHandle?
  let objectsFolder: DirectoryHandle?
  let entriesFolder: DirectoryHandle?
  let lock: CacheLock?
  /// How many blobs this store has read and hashed to verify them (tests check that a start
  /// trusts matching stamps).
  let hashes = SharedCounter()
  /// What each entry file named at its last read, so unchanged entries are not decoded again.
  let entryBlobs = EntryBlobIndex()

  /// The largest entry or record file read (they are a few hundred bytes).
  static let metadataLimit = 1 << 20

  /// Opens (creating when needed) the cache at `root`.
  ///
  /// - Parameters:
  ///   - root: the cache folder.
  ///   - lockTimeout: the longest a commit waits for another process's commit lock.
  /// - Throws: ``CacheDirectoryError`` when the folder is not one the engine may use: a symlink,
  ///   writable by group or others, or a non-empty folder the engine did not make.
  public init(root: URL, lockTimeout: Duration = .seconds(10)) throws(CacheDirectoryError) {
    let root = root.standardizedFileURL
    self.root = root
    let path = root.path
    var readOnlyReason: String?

    var info = stat()
    if lstat(path, &info) != 0 {
      if errno == ENOENT {
        readOnlyReason = Self.create(path)
      } else {
        readOnlyReason =
          "the cache folder \(path) cannot be examined: \(String(cString: strerror(errno)))"
      }
    } else if (info.st_mode & S_IFMT) == S_IFLNK {
      throw CacheDirectoryError(
        path: path,
        problem:
          "is a symbolic link; AssetWatch never follows links into its cache: point cacheDirectory (or --cache-dir) at the real folder"
      )
    }

    let rootFolder: DirectoryHandle?
    do {
      rootFolder = try DirectoryHandle.open(path: path)
    } catch {
      guard readOnlyReason != nil else {
        throw CacheDirectoryError(path: path, problem: "cannot be opened (\(error.reason))")
      }
      rootFolder = nil
    }
    guard let rootFolder else {
      // Nothing on disk and nothing can be made: serve bundled copies only.
      self.isReadOnly = true
      self.readOnlyReason = readOnlyReason
      self.adopted = false
      self.rootFolder = nil
      self.tmpFolder = nil
      self.objectsFolder = nil
      self.entriesFolder = nil
      self.lock = nil
      return
    }
    try Self.checkMode(rootFolder)
    let writable = rootFolder.isWritable
    if !writable, readOnlyReason == nil {
      readOnlyReason =
        "the cache folder \(path) is not writable (read-only file system or permissions)"
    }
    let adopted = try Self.claim(rootFolder, writable: writable)

    func sub(_ name: String) throws(CacheDirectoryError) -> DirectoryHandle? {
      do {
        let folder = try rootFolder.subfolder(name, create: writable)
        try Self.checkMode(folder)
        return folder
      } catch let error as CacheDirectoryError {
        throw error
      } catch let error as StorageError {
        if error.code == ENOENT, !writable { return nil }
        if error.code == ELOOP || error.code == ENOTDIR {
          throw CacheDirectoryError(
            path: rootFolder.child(name),
            problem:
              "is not a folder (a symbolic link or a file); remove it and AssetWatch recreates it")
        }
        throw CacheDirectoryError(path: rootFolder.child(name), problem: error.reason)
      } catch {
        throw CacheDirectoryError(path: rootFolder.child(name), problem: "\(error)")
      }
    }
    self.rootFolder = rootFolder
    self.tmpFolder = try sub(CacheLayout.tmp)
    self.objectsFolder = try sub(CacheLayout.objects)
    self.entriesFolder = try sub(CacheLayout.entries)
    self.adopted = adopted
    if writable {
      do {
        let fd = try rootFolder.openFile(CacheLayout.lock, O_RDWR | O_CREAT)
        close(fd)
      } catch {
        throw CacheDirectoryError(
          path: rootFolder.child(CacheLayout.lock), problem: "cannot be used (\(error.reason))")
      }
      self.lock = CacheLock(folder: rootFolder, timeout: lockTimeout)
    } else {
      self.lock = nil
    }
    self.isReadOnly = !writable
    self.readOnlyReason = writable ? nil : readOnlyReason
  }

  /// Creates the cache folder (parents as needed, the folder itself `0700`); returns why it
  /// could not be created, or nil.
  private static func create(_ path: String) -> String? {
    let parent = (path as NSString).deletingLastPathComponent
    if !parent.isEmpty {
      try? FileManager.default.createDirectory(
        atPath: parent, withIntermediateDirectories: true)
    }
    if mkdir(path, 0o700) != 0, errno != EEXIST {
      return "the cache folder \(path) cannot be created: \(String(cString: strerror(errno)))"
    }
    _ = chmod(path, 0o700)
    return nil
  }

  /// Refuses a folder that others may write to, as ssh refuses a loose `~/.ssh`: anyone who can
  /// write there could swap a blob or plant a link.
  private static func checkMode(_ folder: DirectoryHandle) throws(CacheDirectoryError) {
    var info = stat()
    guard fstat(folder.fd, &info) == 0 else { return }
    let mode = info.st_mode & 0o7777
    if mode & 0o022 != 0 {
      throw CacheDirectoryError(
        path: folder.path,
        problem:
          "is writable by group or others (mode \(String(mode, radix: 8))); run: chmod go-w '\(folder.path)'"
      )
    }
  }

  /// Makes sure the engine owns the folder: the marker is there, or the folder is empty or laid
  /// out only with names the engine makes (an older release's cache), in which case the marker is
  /// written. Returns whether an existing layout was adopted.
  ///
  /// Several processes may open a new folder at once. The marker is written whole under a temp
  /// name (`CACHEDIR.TAG.<n>.tmp`) and renamed into place, so nobody ever reads a half-made one;
  /// the temp name, and everything else a claimer that got further makes (`.lock`, `tmp/`,
  /// `objects/`, `entries/`), are names of ``CacheLayout``, so a process that looks in the middle
  /// of another's claim sees a folder it may claim too. Every claimer renames the same bytes over
  /// the marker: the last rename wins and changes nothing.
  private static func claim(_ root: DirectoryHandle, writable: Bool) throws(CacheDirectoryError)
    -> Bool
  {
    if let marker = try? root.status(CacheLayout.marker) {
      return try checkMarker(marker, in: root)
    }
    let names: [(name: String, isFile: Bool)]
    do { names = try root.list() } catch {
      throw CacheDirectoryError(path: root.path, problem: "cannot be listed (\(error.reason))")
    }
    if names.contains(where: { $0.name == CacheLayout.marker }),
      let marker = try? root.status(CacheLayout.marker)
    {
      // Another process finished its claim between the look and the listing.
      return try checkMarker(marker, in: root)
    }
    if let stranger = strangers(in: root, names: names) {
      throw CacheDirectoryError(
        path: root.path,
        problem:
          "is not empty and was not made by AssetWatch (it holds '\(TerminalText.sanitize(stranger, maxLength: 80))' and no \(CacheLayout.marker)); use an empty or new folder for the cache"
      )
    }
    guard writable else { return false }
    do {
      try root.writeDurably(Data(CacheLayout.markerContent.utf8), as: CacheLayout.marker)
    } catch {
      // A claimer that got further may have swept our temp away as an interrupted write: its
      // marker stands for ours.
      if let marker = try? root.status(CacheLayout.marker) {
        return try checkMarker(marker, in: root)
      }
      throw CacheDirectoryError(
        path: root.child(CacheLayout.marker), problem: "cannot be written (\(error.reason))")
    }
    // Adopted: something other than a concurrent claimer's marker temp was already there.
    return names.contains { !CacheLayout.isMarkerTemp($0.name) }
  }

  /// Accepts a marker that is a regular file; returns false (nothing adopted).
  private static func checkMarker(_ marker: stat, in root: DirectoryHandle)
    throws(CacheDirectoryError) -> Bool
  {
    guard (marker.st_mode & S_IFMT) == S_IFREG else {
      throw CacheDirectoryError(
        path: root.child(CacheLayout.marker), problem: "is not a regular file; remove it")
    }
    return false
  }

  /// The first name in the root or its known sub-folders that the engine never makes.
  private static func strangers(
    in root: DirectoryHandle, names: [(name: String, isFile: Bool)]
  ) -> String? {
    for (name, _) in names {
      guard CacheLayout.isRootName(name) else { return name }
      guard [CacheLayout.tmp, CacheLayout.objects, CacheLayout.entries].contains(name) else {
        continue
      }
      guard let folder = try? root.subfolder(name, create: false) else { return name }
      for (inner, isFile) in (try? folder.list()) ?? [] {
        guard isFile, CacheLayout.isKnown(inner, in: name) else { return "\(name)/\(inner)" }
      }
    }
    return nil
  }

  // MARK: - Paths

  /// The entry file's path for an id (shown in the detail pane; never opened by path). Built
  /// as text: every status has one, and `URL.appendingPathComponent` per status was a tenth
  /// of a revalidation of thousands.
  func entryPath(_ id: String) -> String? {
    guard CacheLayout.isID(id) else { return nil }
    return Self.join(root.path, CacheLayout.entries, id + ".json")
  }

  /// The blob's path for a hash (what `status` shows).
  func objectPath(_ sha256: String) -> String {
    precondition(SHA256Text.isValid(sha256), "not a sha256")
    return Self.join(root.path, CacheLayout.objects, sha256)
  }

  /// The blob's URL for a hash (what ``AssetEngine/fileURL(_:)`` returns).
  func objectURL(_ sha256: String) -> URL {
    URL(fileURLWithPath: objectPath(sha256), isDirectory: false)
  }

  private static func join(_ root: String, _ folder: String, _ name: String) -> String {
    (root.hasSuffix("/") ? root : root + "/") + folder + "/" + name
  }

  private func folder(_ handle: DirectoryHandle?, _ name: String) throws(StorageError)
    -> DirectoryHandle
  {
    guard let handle else {
      throw StorageError(
        operation: "use (the cache is read-only)",
        path: root.appendingPathComponent(name).path, code: EROFS)
    }
    return handle
  }

  // MARK: - Lock

  /// Runs `body` holding the exclusive commit lock, waiting a bounded time for it.
  ///
  /// - Throws: ``StorageError`` when the cache is read-only or the lock stays held by another
  ///   process (the message names it); what `body` throws.
  func withCommitLock<T>(_ body: () throws -> T) throws -> T {
    guard let lock else {
      throw StorageError(operation: "lock (the cache is read-only)", path: root.path, code: EROFS)
    }
    return try lock.withLock(body)
  }

  // MARK: - Entries

  /// Reads an entry; `nil` when there is none.
  ///
  /// - Throws: a readable reason when the file exists but cannot be used.
  func readEntry(_ id: String) throws -> CacheEntry? {
    guard CacheLayout.isID(id) else {
      throw StorageError(operation: "entry", path: id, code: EINVAL)
    }
    guard let entries = entriesFolder else { return nil }
    guard let data = try entries.read(id + ".json", limit: Self.metadataLimit) else { return nil }
    return try Self.decodeEntry(data, id: id)
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

  /// Flushes `entries/` (the renames of a group of entry writes).
  func syncEntries() throws { try folder(entriesFolder, CacheLayout.entries).sync() }

  /// Flushes `objects/` (the renames of a group of blob moves).
  func syncObjects() throws { try folder(objectsFolder, CacheLayout.objects).sync() }

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

  // MARK: - Manifest

  /// The stored manifest's bytes, or nil.
  func readManifest() throws -> Data? {
    try rootFolder?.read(CacheLayout.manifest, limit: 16 << 20)
  }

  /// Stores the manifest durably.
  func writeManifest(_ data: Data) throws {
    try folder(isReadOnly ? nil : rootFolder, "").writeDurably(data, as: CacheLayout.manifest)
  }

  // MARK: - Blobs

  /// Reserves a new partial file in `tmp/` for a download of `owner` (an asset id or
  /// `manifest`): created exclusive and locked by the first byte of a body, so a 304 touches no
  /// file.
  func createPartial(for owner: String) throws -> PartialFile {
    guard owner == "manifest" || CacheLayout.isID(owner) else {
      throw StorageError(operation: "partial", path: owner, code: EINVAL)
    }
    let tmp = try folder(tmpFolder, CacheLayout.tmp)
    let name = "\(owner).\(UInt64.random(in: 0...UInt64.max)).part"
    return PartialFile(folder: tmp, deferredName: name)
  }

  /// Moves a finished, hashed and fsynced partial into `objects/<sha256>`, without flushing
  /// `objects/`: the caller runs ``syncObjects()`` before anything names the blob durably. The
  /// blob is named by its hash, so committing the same bytes twice is harmless.
  ///
  /// - Returns: the blob's stamp after the move (what a later start compares with).
  func moveBlob(_ partial: PartialFile, sha256: String) throws -> BlobStamp? {
    guard SHA256Text.isValid(sha256) else {
      throw StorageError(operation: "blob", path: sha256, code: EINVAL)
    }
    let objects = try folder(objectsFolder, CacheLayout.objects)
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
    return doomed.reduce(0) { $0 + (objects.remove($1) ? 1 : 0) }
  }

  /// The stamp of a blob's file as it is now; nil when it is missing.
  func blobFileStamp(_ sha256: String) -> BlobStamp? {
    guard SHA256Text.isValid(sha256), let objects = objectsFolder else { return nil }
    return (try? objects.status(sha256)).flatMap { $0.map(BlobStamp.init) }
  }

  /// Looks again, holding the commit lock, at the generation in `slot` of `id`'s entry on disk:
  /// whether it is still `copy` (``Generation/isSameCopy(as:)``) and, if so, whether its blob
  /// passes ``verifyBlob(_:trustingStamp:)``.
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
      guard let problem = verifyBlob(disk, trustingStamp: trustingStamp) else { return .intact }
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
  /// difference falls back to the full check. ``AssetEngine/verify(_:)`` always reads.
  func verifyBlob(_ generation: Generation, trustingStamp: Bool = false) -> String? {
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

  // MARK: - Sweep

  /// What a sweep removed, for logs and tests.
  struct SweepReport: Equatable {
    var partials = 0
    var orphanedResumes = 0
    var temps = 0
    var blobs = 0
  }

  /// Removes, by name only, what the engine left behind: partials no live writer holds, kept
  /// partials nobody can resume, interrupted temp files, and blobs no entry names. Files the
  /// engine does not recognise are never touched. Skipped (nil) when another process holds the
  /// lock or the cache is read-only.
  ///
  /// - Parameters:
  ///   - keep: hashes still referenced in memory (current and previous generations).
  ///   - resumableIDs: assets whose kept partials may be resumed.
  func sweep(keep: Set<String>, resumableIDs: Set<String> = []) throws -> SweepReport? {
    guard let lock, let tmp = tmpFolder, let objects = objectsFolder, let entries = entriesFolder,
      let rootFolder
    else { return nil }
    return try lock.withLockIfFree {
      var report = SweepReport()
      var keep = keep
      let entryNames = try entries.list()
      for (name, _) in entryNames {
        if let id = CacheLayout.entryID(name) {
          guard let entry = try? readEntry(id) else { continue }
          if let sha = entry.current?.sha256 { keep.insert(sha) }
          if let sha = entry.previous?.sha256 { keep.insert(sha) }
        } else if CacheLayout.isWriteTemp(name, of: { CacheLayout.entryID($0) != nil }) {
          if entries.remove(name) { report.temps += 1 }
        }
      }
      for (name, _) in try rootFolder.list()
      where CacheLayout.isWriteTemp(name, of: CacheLayout.isRootTempTarget) {
        if rootFolder.remove(name) { report.temps += 1 }
      }
      let tmpNames = Set(try tmp.list().map(\.name))
      for name in tmpNames {
        switch CacheLayout.tmpName(name) {
        case nil:
          continue  // not ours: never touched
        case .partial:
          if tmp.isUnlocked(name), tmp.remove(name) { report.partials += 1 }
        case .resumePart(let id):
          let recorded = tmpNames.contains(id + ".resume.json")
          if !(recorded && resumableIDs.contains(id)), tmp.isUnlocked(name),
            tmp.remove(name)
          {
            report.orphanedResumes += 1
          }
        case .resumeRecord(let id):
          if !(tmpNames.contains(id + ".resume.part") && resumableIDs.contains(id)),
            tmp.remove(name)
          {
            report.orphanedResumes += 1
          }
        case .resumeRecordTemp:
          if tmp.remove(name) { report.temps += 1 }
        }
      }
      for (name, _) in try objects.list()
      where CacheLayout.isObjectName(name) && !keep.contains(name) {
        if objects.remove(name) { report.blobs += 1 }
      }
      return report
    }
  }

}

extension BlobStamp {
  /// The stamp of a file's metadata.
  init(_ info: stat) {
    self.init(
      inode: UInt64(info.st_ino), size: Int64(info.st_size),
      modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
      changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
  }
}

/// A counter shared by copies of a value type.
final class SharedCounter: Sendable {
  private let value = Atomic<Int>(0)
  func add(_ n: Int) { value.add(n, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}

/// A cache folder the engine refuses to use, and what to do about it.
package struct CacheDirectoryError: Error, Sendable, CustomStringConvertible {
  /// The folder (or file in it) at fault.
  public var path: String
  /// What is wrong, and the fix.
  public var problem: String

  public var description: String { "\(path) \(problem)" }
}

/// Reading and hashing files through descriptors.
enum FileDigest {
  /// SHA-256 of everything from the descriptor's start, read in 1 MiB chunks.
  static func sha256(fd: Int32) throws -> String {
    var hasher = SHA256()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var offset: off_t = 0
    while true {
      let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
      if n < 0, errno == EINTR { continue }
      if n < 0 { throw StorageError(operation: "read", path: "fd \(fd)", code: errno) }
      if n == 0 { break }
      buffer.withUnsafeBytes {
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n]))
      }
      offset += off_t(n)
    }
    return hasher.finalize().hexString
  }

  /// Every byte of the file behind `fd`.
  static func readAll(_ fd: Int32, path: String) throws -> Data {
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw StorageError(operation: "stat", path: path, code: errno)
    }
    var data = Data(count: Int(info.st_size))
    var offset = 0
    while offset < data.count {
      let n = data.withUnsafeMutableBytes {
        pread(fd, $0.baseAddress! + offset, $0.count - offset, off_t(offset))
      }
      if n < 0, errno == EINTR { continue }
      if n < 0 { throw StorageError(operation: "read", path: path, code: errno) }
      if n == 0 { break }
      offset += n
    }
    data.count = offset
    return data
  }
}

extension Digest {
  /// Lowercase hexadecimal.
  var hexString: String { SHA256Text.hex(self) }
}
