import CFileWriteback
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// An open folder of the cache, and every file operation the store makes inside it.
///
/// All access goes through the folder's descriptor with `openat`-family calls and one path
/// component at a time, with `O_NOFOLLOW`: a symlink planted in the cache (at an entry's temp
/// name, a partial, the lock) is never followed, and a folder swapped for a symlink after it was
/// opened changes nothing, because the descriptor still names the folder that was checked.
/// New files are created `0600` and folders `0700`, whatever the umask (`fchmod` after creation).
///
/// The descriptor is immutable and closed once, in `deinit`; the kernel serializes the calls made
/// on it, so the handle is safe to share between threads.
final class DirectoryHandle: Sendable {
  /// The descriptor (`O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC`).
  let fd: Int32
  /// The folder's path, for messages and for the paths shown to people.
  let path: String
  /// Whether unnamed files (``createUnnamed(probeName:)``) can be made and named here: 0 not
  /// known yet, 1 yes (a probe was made and named), 2 no (refused once: not asked again).
  private let unnamedFiles = Atomic<UInt8>(0)
  /// How many unnamed files were linked in here (tests).
  let unnamedLinks = SharedCounter()

  private init(fd: Int32, path: String) {
    self.fd = fd
    self.path = path
  }

  deinit { close(fd) }

  /// Opens an existing folder; a symlink in its last component is refused (`ELOOP`).
  static func open(path: String) throws(StorageError) -> DirectoryHandle {
    let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    if fd < 0 { throw StorageError(operation: "open folder", path: path, code: errno) }
    return DirectoryHandle(fd: fd, path: path)
  }

  /// Opens the sub-folder `name`, creating it `0700` when `create` is set and it is absent.
  func subfolder(_ name: String, create: Bool) throws(StorageError) -> DirectoryHandle {
    try Self.checkName(name)
    if create, mkdirat(fd, name, 0o700) == 0 {
      // mkdirat's mode is cut by the umask: set it exactly.
      _ = fchmodat(fd, name, 0o700, 0)
    }
    let sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    if sub < 0 {
      throw StorageError(operation: "open folder", path: child(name), code: errno)
    }
    return DirectoryHandle(fd: sub, path: child(name))
  }

  /// The path of `name` inside this folder (for messages and status output only).
  func child(_ name: String) -> String { path.hasSuffix("/") ? path + name : path + "/" + name }

  // MARK: - Files

  /// Opens `name` without following a symlink; with `O_CREAT` a new file gets mode `0600`.
  ///
  /// Only regular files are accepted: a FIFO, device or folder planted at the name is refused
  /// without blocking (`O_NONBLOCK` on the open, cleared afterwards unless the file is only
  /// read on Linux; a file the open creates exclusively needs none).
  func openFile(_ name: String, _ flags: Int32) throws(StorageError) -> Int32 {
    try openFileWithStatus(name, flags).fd
  }

  /// Opens `name` as ``openFile(_:_:)`` does, and returns the `fstat` it checked the file with
  /// (the file opened: a rename over `name` afterwards does not change it).
  func openFileWithStatus(_ name: String, _ flags: Int32) throws(StorageError) -> (
    fd: Int32, info: stat
  ) {
    try Self.checkName(name)
    // A file this call creates (`O_CREAT | O_EXCL`) is a new regular file: nothing planted at
    // the name can block the open, so it needs no `O_NONBLOCK`, nor the two `fcntl` calls that
    // clear it.
    let creates = flags & (O_CREAT | O_EXCL) == O_CREAT | O_EXCL
    let fd = openat(
      self.fd, name, flags | O_NOFOLLOW | O_CLOEXEC | (creates ? 0 : O_NONBLOCK), 0o600)
    if fd < 0 { throw StorageError(operation: "open", path: child(name), code: errno) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      Glibc.close(fd)
      throw StorageError(operation: "open (not a regular file)", path: child(name), code: EINVAL)
    }
    // A file linked from elsewhere (a hard link planted to a file outside the cache) is not ours.
    if flags & (O_WRONLY | O_RDWR) != 0, info.st_nlink > 1 {
      Glibc.close(fd)
      throw StorageError(operation: "open (hard-linked file)", path: child(name), code: EMLINK)
    }
    if flags & O_CREAT != 0, info.st_mode & 0o7777 != 0o600, info.st_uid == geteuid() {
      _ = fchmod(fd, 0o600)
    }
    if !creates, !Self.readsIgnoreNonBlocking || flags & O_ACCMODE != O_RDONLY {
      let status = fcntl(fd, F_GETFL)
      _ = fcntl(fd, F_SETFL, status & ~O_NONBLOCK)
    }
    return (fd, info)
  }

  /// Whether reads of a regular file ignore `O_NONBLOCK`, as Linux documents (open(2): "this
  /// flag has no effect for regular files"). There a file opened to be read keeps the flag: the
  /// two `fcntl` calls that cleared it were two of the five system calls of each entry read,
  /// 2,000 of a revalidation of 1,000 assets.
  static var readsIgnoreNonBlocking: Bool {
    #if os(Linux)
      true
    #else
      false
    #endif
  }

  /// Creates a new file that must not exist yet (`O_EXCL`: a planted symlink makes this fail).
  func createExclusive(_ name: String) throws(StorageError) -> Int32 {
    try openFile(name, O_RDWR | O_CREAT | O_EXCL)
  }

  /// Metadata of `name` without following a symlink; nil when it does not exist.
  func status(_ name: String) throws(StorageError) -> stat? {
    try Self.checkName(name)
    var info = stat()
    if fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return info }
    if errno == ENOENT { return nil }
    throw StorageError(operation: "stat", path: child(name), code: errno)
  }

  /// Reads a whole small regular file (entries, records, the manifest); nil when absent.
  ///
  /// - Throws: ``StorageError`` for a symlink, a non-regular file, or a file larger than `limit`.
  func read(_ name: String, limit: Int = 16 << 20) throws(StorageError) -> Data? {
    try readWithStatus(name, limit: limit)?.data
  }

  /// Reads a whole small regular file as ``read(_:limit:)`` does, with the `fstat` of the file
  /// read: its stamp describes exactly these bytes (an entry's stamp without a second look).
  ///
  /// - Throws: ``StorageError`` for a symlink, a non-regular file, or a file larger than `limit`.
  func readWithStatus(_ name: String, limit: Int = 16 << 20) throws(StorageError) -> (
    data: Data, info: stat
  )? {
    let opened: (fd: Int32, info: stat)
    do {
      opened = try openFileWithStatus(name, O_RDONLY)
    } catch {
      if error.code == ENOENT { return nil }
      throw error
    }
    defer { Glibc.close(opened.fd) }
    guard Int64(opened.info.st_size) <= Int64(limit) else {
      throw StorageError(operation: "read (too large)", path: child(name), code: EFBIG)
    }
    do {
      let data = try FileDigest.readAll(
        opened.fd, path: child(name), size: Int(opened.info.st_size))
      return (data, opened.info)
    } catch let error as StorageError {
      throw error
    } catch {
      throw StorageError(operation: "read", path: child(name), code: EIO)
    }
  }

  /// Writes `data` as `name` durably: a new temp file (exclusive, never through a link), fsync,
  /// rename over `name`, fsync of this folder. Readers see the old or the new file, never a mix.
  func writeDurably(_ data: Data, as name: String) throws(StorageError) {
    try write(data, as: name, durably: true)
  }

  /// Writes `data` as `name` by temp file and rename; fsyncs only when `durably` is set (a
  /// non-durable file may be lost or empty after a crash, never half old, half new).
  ///
  /// With `syncingFolder` false, the file is fsynced before the rename but the folder is not
  /// after it: the caller flushes the folder once for a group of files (``sync()``) before it
  /// reports any of them written.
  func write(_ data: Data, as name: String, durably: Bool, syncingFolder: Bool = true)
    throws(StorageError)
  {
    let temp = "\(name).\(UniqueSuffix.next()).tmp"
    let fd = try createExclusive(temp)
    do throws(StorageError) {
      var failure: StorageError?
      data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
        do throws(StorageError) { try POSIX.writeAll(fd, raw, path: child(temp)) } catch {
          failure = error
        }
      }
      if let failure { throw failure }
      if durably { try POSIX.fsync(fd, path: child(temp)) }
    } catch {
      Glibc.close(fd)
      unlinkat(self.fd, temp, 0)
      throw error
    }
    Glibc.close(fd)
    do {
      try rename(temp, to: self, as: name)
      if durably, syncingFolder { try sync() }
    } catch {
      unlinkat(self.fd, temp, 0)
      throw error
    }
  }

  /// Writes each file of `files` durably as ``write(_:as:durably:syncingFolder:)`` does without
  /// the folder's flush (temp file, fsync, rename), the fsyncs of the group at once
  /// (``GroupFsync``): the caller flushes the folder once (``sync()``) before it reports any of
  /// them written. A failure leaves that file's old content and no temp.
  ///
  /// `other` (a folder whose renames the new files depend on) is flushed in the same wave of
  /// fsyncs as the temp files: no file in `dependents` (indices into `files`) is renamed into
  /// place unless that flush succeeded (it fails with the flush's error instead), so `other` is
  /// durable before any of them names what it holds. The others are renamed either way.
  ///
  /// A file in `absent` (indices into `files`: names the caller found free, under a lock that
  /// keeps other writers out) is written without a name (``createUnnamed(probeName:)``) and
  /// linked in: one entry added to the folder instead of a temp file's and a rename's. Where
  /// the name was taken after all, or the file system cannot, it takes the temp file's way.
  ///
  /// - Returns: each file's failure (nil for one written) and the flush's own failure.
  func writeGroup(
    _ files: [(data: Data, name: String)], flushing other: DirectoryHandle?,
    before dependents: Set<Int>, absent: Set<Int> = []
  ) -> (failures: [StorageError?], flushFailure: StorageError?) {
    var failures = [StorageError?](repeating: nil, count: files.count)
    // `temp` is nil for an unnamed file.
    var temps: [(index: Int, temp: String?, fd: Int32)] = []
    for (index, file) in files.enumerated() {
      let tempName = { "\(file.name).\(UniqueSuffix.next()).tmp" }
      var temp: String?
      do throws(StorageError) {
        let fd: Int32
        if absent.contains(index), let unnamed = createUnnamed(probeName: tempName) {
          fd = unnamed
        } else {
          let name = tempName()
          temp = name
          fd = try createExclusive(name)
        }
        let path = child(temp ?? file.name)
        var failure: StorageError?
        file.data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
          do throws(StorageError) { try POSIX.writeAll(fd, raw, path: path) } catch {
            failure = error
          }
        }
        if let failure {
          Glibc.close(fd)
          if let temp { unlinkat(self.fd, temp, 0) }
          throw failure
        }
        temps.append((index, temp, fd))
      } catch {
        failures[index] = error
      }
    }
    let codes = GroupFsync.sync(temps.map(\.fd) + (other.map { [$0.fd] } ?? []))
    let flushFailure = other.flatMap { other in
      codes.last.flatMap {
        $0 == 0 ? nil : StorageError(operation: "fsync", path: other.path, code: $0)
      }
    }
    for (written, code) in zip(temps, codes) {
      let name = files[written.index].name
      // An unnamed file whose name was taken meanwhile gets a temp name, and is renamed over.
      var temp = written.temp
      do throws(StorageError) {
        guard code == 0 else {
          throw StorageError(
            operation: "fsync", path: child(temp ?? name), code: code)
        }
        if let flushFailure, dependents.contains(written.index) { throw flushFailure }
        if temp == nil {
          do {
            try linkUnnamed(written.fd, as: name)
          } catch let error where error.code == EEXIST {
            let other = "\(name).\(UniqueSuffix.next()).tmp"
            try linkUnnamed(written.fd, as: other)
            temp = other
          }
        }
        if let temp { try rename(temp, to: self, as: name) }
      } catch {
        if let temp { unlinkat(self.fd, temp, 0) }
        failures[written.index] = error
      }
      Glibc.close(written.fd)
    }
    return (failures, flushFailure)
  }

  // MARK: - Unnamed files

  /// Opens a new regular file, mode `0600`, that has no name yet (`O_TMPFILE`): no other
  /// process can open it, no sweep sees it, and a crash leaves nothing behind (the kernel frees
  /// it). It gets a name with ``linkUnnamed(_:as:)``, whole, or never.
  ///
  /// nil where it cannot be made, or could not be named later: a file system or kernel without
  /// `O_TMPFILE`, one that makes them but cannot link them (the first use here makes a probe,
  /// names it `probeName()` and removes it, once: give a name a sweep of this folder removes if
  /// a crash leaves it), no `/proc` to link through, or any other error. A refusal holds for
  /// the folder: it is not asked again. The caller then makes a named file, which reports an
  /// error that persists.
  func createUnnamed(probeName: () -> String) -> Int32? {
    guard Self.canLinkUnnamed else { return nil }
    switch unnamedFiles.load(ordering: .relaxed) {
    case 0:
      switch probeUnnamed(as: probeName()) {
      case true?: unnamedFiles.store(1, ordering: .relaxed)
      case false?:
        unnamedFiles.store(2, ordering: .relaxed)
        return nil
      case nil: return nil  // a passing failure (no descriptor, no space): asked again later
      }
    case 1: break
    default: return nil
    }
    let fd = cfw_open_unnamed(self.fd)
    guard fd >= 0 else { return nil }
    // The open's mode is cut by the umask, as `createExclusive`'s is: set it exactly.
    _ = fchmod(fd, 0o600)
    return fd
  }

  /// Makes an unnamed file, names it `name`, and removes it: whether this folder can do both
  /// (nil for a failure that says nothing about the file system).
  private func probeUnnamed(as name: String) -> Bool? {
    let refusals = [EOPNOTSUPP, EISDIR, EINVAL, ENOSYS, EPERM, EACCES, ENOENT, EXDEV, EMLINK]
    let fd = cfw_open_unnamed(self.fd)
    guard fd >= 0 else { return refusals.contains(errno) ? false : nil }
    defer { Glibc.close(fd) }
    guard cfw_link_unnamed(fd, self.fd, name) == 0 else {
      return refusals.contains(errno) ? false : nil
    }
    unlinkat(self.fd, name, 0)
    return true
  }

  /// Whether this folder's file system or the kernel refused unnamed files (tests).
  var refusedUnnamed: Bool { unnamedFiles.load(ordering: .relaxed) == 2 }

  /// Gives the unnamed file `descriptor` (``createUnnamed(probeName:)``) the name `name` in this
  /// folder, never over an existing file: it appears there whole, at once.
  ///
  /// - Throws: ``StorageError`` (`EEXIST` when `name` is taken).
  func linkUnnamed(_ descriptor: Int32, as name: String) throws(StorageError) {
    try Self.checkName(name)
    if cfw_link_unnamed(descriptor, fd, name) != 0 {
      throw StorageError(operation: "link", path: child(name), code: errno)
    }
    unnamedLinks.add(1)
  }

  /// Whether this process can name an unnamed file: ``linkUnnamed(_:as:)`` links it through
  /// `/proc/self/fd`, which a container or chroot may lack. Looked at once.
  static let canLinkUnnamed: Bool = {
    #if os(Linux)
      access("/proc/self/fd", X_OK) == 0
    #else
      false
    #endif
  }()

  /// Renames `name` to `target` inside this folder only if nothing is named `target` (atomic):
  /// a name another process took meanwhile is never replaced.
  ///
  /// - Throws: ``StorageError`` (`EEXIST` when `target` exists).
  func renameNoReplace(_ name: String, as target: String) throws(StorageError) {
    try Self.checkName(name)
    try Self.checkName(target)
    if cfw_rename_noreplace(fd, name, fd, target) != 0 {
      throw StorageError(
        operation: "rename (no replace)", path: "\(child(name)) -> \(child(target))", code: errno)
    }
  }

  /// Whether `name` is still the file open as `descriptor` (same device and inode): a file
  /// acted on by name (moved into `objects/`, removed) must be the one this process wrote.
  func names(_ name: String, descriptor: Int32) -> Bool {
    var open = stat()
    var named = stat()
    guard fstat(descriptor, &open) == 0, fstatat(fd, name, &named, AT_SYMLINK_NOFOLLOW) == 0
    else { return false }
    return open.st_dev == named.st_dev && open.st_ino == named.st_ino
  }

  /// Renames `name` to `target` inside `folder` (atomic; a symlink at the target is replaced,
  /// never followed).
  func rename(_ name: String, to folder: DirectoryHandle, as target: String) throws(StorageError) {
    try Self.checkName(name)
    try Self.checkName(target)
    if renameat(fd, name, folder.fd, target) != 0 {
      throw StorageError(
        operation: "rename", path: "\(child(name)) -> \(folder.child(target))", code: errno)
    }
  }

  /// Removes the file `name`; returns whether something was removed.
  @discardableResult
  func remove(_ name: String) -> Bool {
    guard (try? Self.checkName(name)) != nil else { return false }
    return unlinkat(fd, name, 0) == 0
  }

  /// Removes the regular file `name` if no process holds its `flock` (a live writer keeps its
  /// partial locked), holding the lock itself while it unlinks: a writer that locks the file
  /// after its creation either finds it locked (and waits the instant of the unlink) or finds it
  /// unlinked and makes another (see ``PartialFile``), never writes into a removed file. False
  /// when it cannot be opened, is locked, or the unlink fails.
  @discardableResult
  func removeIfUnlocked(_ name: String) -> Bool {
    guard let fd = try? openFile(name, O_RDONLY) else { return false }
    defer { Glibc.close(fd) }  // releases the lock, after the unlink
    guard POSIX.tryLock(fd) else { return false }
    return remove(name)
  }

  /// Makes renames and removals in this folder durable.
  func sync() throws(StorageError) {
    if Glibc.fsync(fd) != 0 { throw StorageError(operation: "fsync", path: path, code: errno) }
  }

  /// The names in this folder (not `.` and `..`), with whether each is a regular file.
  func list() throws(StorageError) -> [(name: String, isFile: Bool)] {
    try listWithInodes().map { ($0.name, $0.isFile) }
  }

  /// The names in this folder as ``list()`` gives them, with each one's inode number (from the
  /// listing itself, no look at the file).
  func listWithInodes() throws(StorageError) -> [(name: String, isFile: Bool, inode: UInt64)] {
    // fdopendir takes over its descriptor: give it a duplicate, rewound.
    let copy = dup(fd)
    if copy < 0 { throw StorageError(operation: "list", path: path, code: errno) }
    lseek(copy, 0, SEEK_SET)
    guard let dir = fdopendir(copy) else {
      let code = errno
      Glibc.close(copy)
      throw StorageError(operation: "list", path: path, code: code)
    }
    defer { closedir(dir) }
    var names: [(String, Bool, UInt64)] = []
    while let item = readdir(dir) {
      let entry = Self.entry(item)
      if entry.name == "." || entry.name == ".." { continue }
      names.append((entry.name, entry.isFile, Self.inode(item)))
    }
    return names
  }

  /// The name of a `readdir` entry, read in place as the C string it is, and whether it is a
  /// regular file (its type byte, read in place too).
  ///
  /// Not `item.pointee.d_name`: that copies the whole declared `char[256]`, but the kernel packs
  /// entries by their length (`d_reclen`), so the copy of a short name read past the entry, and
  /// for the last entry of `readdir`'s buffer past the buffer itself: a crash (SIGSEGV) when the
  /// next page is not mapped, which listing a folder of 3,000 entries met.
  static func entry(_ item: UnsafeMutablePointer<dirent>) -> (name: String, isFile: Bool) {
    let raw = UnsafeRawPointer(item)
    let start = (raw + MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
      .assumingMemoryBound(to: CChar.self)
    let type = raw.load(
      fromByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_type)!, as: UInt8.self)
    return (String(cString: start), type == UInt8(DT_REG))
  }

  /// The inode number of a `readdir` entry, read in place (not through `pointee`: see
  /// ``entry(_:)``).
  static func inode(_ item: UnsafeMutablePointer<dirent>) -> UInt64 {
    UInt64(
      UnsafeRawPointer(item).loadUnaligned(
        fromByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_ino)!, as: ino_t.self))
  }

  /// Whether the process may create files here (false on a read-only mount or folder).
  var isWritable: Bool { faccessat(fd, ".", W_OK, AT_EACCESS) == 0 && !isReadOnlyMount }

  private var isReadOnlyMount: Bool {
    var info = statvfs()
    return fstatvfs(fd, &info) == 0 && info.f_flag & UInt(ST_RDONLY) != 0
  }

  /// Refuses a name that is not a single path component.
  static func checkName(_ name: String) throws(StorageError) {
    // Over the string's bytes in place: stepping through its `utf8` view one index at a time
    // cost ~1,000 instructions a name, and every file operation checks one.
    let separatorOrNUL = { (byte: UInt8) in byte == UInt8(ascii: "/") || byte == 0 }
    let refused =
      name.utf8.withContiguousStorageIfAvailable { $0.contains(where: separatorOrNUL) }
      ?? name.utf8.contains(where: separatorOrNUL)
    guard !name.isEmpty, name != ".", name != "..", !refused else {
      throw StorageError(operation: "name", path: name, code: EINVAL)
    }
  }
}
