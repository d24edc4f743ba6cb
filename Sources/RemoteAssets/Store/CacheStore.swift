import Foundation

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
  /// The sizes of `objects/`'s files as last seen, so a measure looks only at new ones.
  let objectSizes = ObjectSizeIndex()
  /// Whether downloads of assets are made without a name where the file system allows it
  /// (``PartialFile``); tests of named partials turn it off.
  var unnamedPartials = true
  /// The bytes written into this store's downloads that have no name yet: a measure adds them,
  /// as it counts a named partial in `tmp/` (no listing shows a file without a name).
  let unnamedBytes = SharedCounter()

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

  /// The folder behind `handle`, or a read-only error naming `name` when there is none.
  func folder(_ handle: DirectoryHandle?, _ name: String) throws(StorageError)
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

  /// Runs `body` holding the commit lock only if no other process holds it now; nil when one
  /// does. For a caller that waits elsewhere (``EntryCommitter`` waits suspended, never on a
  /// thread of the blocking-I/O pool).
  ///
  /// - Throws: ``StorageError`` when the cache is read-only; what `body` throws.
  func withCommitLockIfFree<T>(_ body: () throws -> T) throws -> T? {
    guard let lock else {
      throw StorageError(operation: "lock (the cache is read-only)", path: root.path, code: EROFS)
    }
    return try lock.withLockIfFree(body)
  }

  /// How long a commit waits for another process's lock before it gives up.
  var commitLockTimeout: Duration { lock?.timeout ?? .zero }

  /// The error of a commit that waited ``commitLockTimeout`` in vain (names the holder).
  func commitLockTimeoutError() -> any Error {
    guard let lock else {
      return StorageError(operation: "lock (the cache is read-only)", path: root.path, code: EROFS)
    }
    return lock.timeoutError()
  }
}
