import CFileWriteback
import Crypto
import Foundation
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// A file in `tmp/` that a download streams into, hashing as it goes.
///
/// A download of an asset is made without a name where the file system allows it
/// (``DirectoryHandle/createUnnamed(probeName:)``): no sweep can see it and a crash leaves
/// nothing behind. It is named only where it stays: linked into `objects/` by its commit, or
/// under its resume name when it is kept for a resume. A named file (elsewhere, or where
/// unnamed files cannot be made) is `flock`ed while open so a sweep by another process leaves
/// it alone. Either is reached only through its folder's descriptor (never by path), so a link
/// planted at its name is never followed.
///
/// `@unchecked Sendable` is safe because a `PartialFile` is created by the store and then owned by
/// one `DownloadSink`, which keeps it in a `Mutex`; it is never handed out, so every access is
/// serialized by that lock. (Without it, passing a caller's buffer into the locked state trips
/// region isolation.)
final class PartialFile: @unchecked Sendable {
  /// The folder holding the file (`tmp/`).
  let folder: DirectoryHandle
  /// The file's name in that folder; changes when the file is kept for a resume.
  private(set) var name: String
  private(set) var fd: Int32
  private(set) var bytesWritten: Int64 = 0
  private let hasher = OverlappedSHA256()

  /// The file's path, for messages.
  var path: String { isUnnamed ? folder.child(name) + " (not named yet)" : folder.child(name) }

  /// Whether the file exists yet (a deferred partial is created by its first byte).
  private var created: Bool
  /// Whether the first byte may make the file without a name.
  private var mayBeUnnamed: Bool { unnamedBytes != nil }
  /// Where the bytes written into the file while it has no name are counted (the store's
  /// ``CacheStore/unnamedBytes``, for its measure); nil when it is made with its name.
  private let unnamedBytes: SharedCounter?
  /// The bytes this file has added to `unnamedBytes`, taken back when it is named or closed.
  private var countedUnnamed = 0
  /// Whether the file has no name (made by ``DirectoryHandle/createUnnamed(probeName:)`` and not
  /// linked yet); `name` is then the name it gets if it must be named in its folder.
  private(set) var isUnnamed = false
  /// Where the range not yet handed to the kernel's writeback starts.
  private var writebackStart: Int64 = 0
  /// How many writebacks were started (for tests).
  private(set) var writebacksStarted = 0

  /// Reserves `name` in `folder` without touching the disk: the file is created (exclusively,
  /// and locked) by the first byte written, or by ``descriptor()``. A refresh answered by a 304
  /// or an error thus costs no file: creating and unlinking one per request made ext4 search
  /// its inode bitmap past recently deleted inodes, a quarter of a revalidation's time.
  ///
  /// With `unnamed`, the first byte makes the file without a name where the file system allows
  /// it: a first sync of 1,000 small assets took 0.92x the time (no entry added to `tmp/` and
  /// moved out again, no lock, no look at the name before the move). The bytes written while it
  /// has no name are counted in `unnamed`.
  init(folder: DirectoryHandle, deferredName name: String, unnamed: SharedCounter? = nil) {
    self.folder = folder
    self.name = name
    self.fd = -1
    self.created = false
    self.unnamedBytes = unnamed
  }

  /// Reopens a kept partial to continue it: cuts it to `prefix` bytes (the part known durable)
  /// and re-hashes that prefix (a SHA-256 state cannot be saved mid-way).
  ///
  /// - Throws: ``StorageError`` when the file is missing, not a regular file, shorter than
  ///   `prefix`, or locked by a live writer in another process.
  init(resuming name: String, in folder: DirectoryHandle, prefix: Int64) throws {
    self.folder = folder
    self.name = name
    created = true
    unnamedBytes = nil
    fd = try folder.openFile(name, O_RDWR)
    guard POSIX.tryLock(fd) else {
      Glibc.close(fd)
      throw StorageError(operation: "lock", path: folder.child(name), code: EWOULDBLOCK)
    }
    var info = stat()
    guard fstat(fd, &info) == 0, Int64(info.st_size) >= prefix, prefix >= 0 else {
      Glibc.close(fd)
      throw StorageError(operation: "resume (shorter than its record)", path: path, code: EINVAL)
    }
    if ftruncate(fd, off_t(prefix)) != 0 {
      let code = errno
      Glibc.close(fd)
      throw StorageError(operation: "truncate", path: path, code: code)
    }
    var offset: Int64 = 0
    while offset < prefix {
      var buffer = ByteBuffer()
      var n = 0
      buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 1 << 20) {
        n = pread(fd, $0.baseAddress, min($0.count, Int(prefix - offset)), off_t(offset))
        return max(0, n)
      }
      if n <= 0 {
        let code = n < 0 ? errno : EIO
        Glibc.close(fd)
        throw StorageError(operation: "read", path: path, code: code)
      }
      hasher.update(buffer)
      offset += Int64(n)
    }
    lseek(fd, off_t(prefix), SEEK_SET)
    bytesWritten = prefix
    writebackStart = prefix
  }

  /// Appends bytes and feeds them to the hash (a copy, for a large body: see
  /// ``OverlappedSHA256``).
  func write(_ bytes: UnsafeRawBufferPointer) throws {
    try POSIX.writeAll(try descriptor(), bytes, path: path)
    hasher.update(copying: bytes)
    wrote(bytes.count)
  }

  /// Appends a received buffer and hands the same bytes to the hash, which runs beside the
  /// write on a large body.
  func write(_ buffer: ByteBuffer) throws {
    try write(CollectionOfOne(buffer))
  }

  /// Appends received buffers in order (a batch the writer thread took at once), handing them
  /// to the hash in one go.
  func write(_ buffers: some Collection<ByteBuffer> & Sendable) throws {
    let fd = try descriptor()
    var count = 0
    for buffer in buffers {
      try buffer.withUnsafeReadableBytes { try POSIX.writeAll(fd, $0, path: path) }
      count += buffer.readableBytes
    }
    hasher.update(buffers)
    wrote(count)
  }

  /// Appends `length` bytes of another file (a cached copy, for a delta update) from `offset`.
  ///
  /// The kernel copies them (`copy_file_range`: no trip through this process's memory); they
  /// are then read back from this file through reused buffers for the hash, so what is hashed
  /// is what this file holds. Where the kernel cannot copy between the two files, they are
  /// read and written instead (and hashed from what was read).
  ///
  /// Measured on 1 GiB from the page cache: the kernel's copy took 0.3 s of CPU every time;
  /// reading into buffers and writing them out took 0.4 to 1.8 s.
  ///
  /// - Throws: ``StorageError`` when the source ends early, or a read, copy or write fails.
  func append(copying length: Int64, from source: Int32, at offset: Int64) throws {
    let fd = try descriptor()
    let start = bytesWritten
    var done: Int64 = 0
    while done < length, kernelCopies {
      let n = cfw_copy_range(source, offset + done, fd, length - done)
      if n > 0 {
        done += n
      } else if n == 0 {
        throw StorageError(operation: "copy (the cached copy ended early)", path: path, code: EIO)
      } else if errno == EINTR {
        continue
      } else if [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP, EBADF].contains(errno) {
        kernelCopies = false
      } else {
        throw StorageError(operation: "copy", path: path, code: errno)
      }
    }
    // What the kernel copied, read back for the hash (a block at a time: each batch the hash
    // queue still holds is left alone, so a buffer is refilled only once the hash let it go).
    var hashed: Int64 = 0
    while hashed < done {
      let buffers = try fill(upTo: done - hashed) { raw, at in
        pread(fd, raw.baseAddress, raw.count, off_t(start + hashed + Int64(at)))
      }
      hasher.update(buffers)
      hashed += Int64(buffers.reduce(0) { $0 + $1.readableBytes })
    }
    // The rest by read and write, where the kernel cannot copy.
    while done < length {
      let base = offset + done
      let buffers = try fill(upTo: length - done) { raw, at in
        pread(source, raw.baseAddress, raw.count, off_t(base + Int64(at)))
      }
      for buffer in buffers {
        try buffer.withUnsafeReadableBytes { try POSIX.writeAll(fd, $0, path: path) }
      }
      hasher.update(buffers)
      done += Int64(buffers.reduce(0) { $0 + $1.readableBytes })
    }
    wrote(Int(length))
  }

  /// Whether `copy_file_range` works between the cached copies and this file (false after it
  /// failed with an error saying it cannot).
  var kernelCopies = true
  /// Buffers for ``append(copying:from:at:)``, reused once the hash has let go of them.
  private var copyBuffers: [ByteBuffer] = []
  /// Size of one copy buffer, and how many are kept (twice what the hash queue may hold).
  private static let copyBufferSize = 1 << 20
  private static let copyBufferCount = 2 * OverlappedSHA256.maxBytesInFlight / copyBufferSize

  /// Fills up to ``copyBufferCount`` / 2 buffers (at most `limit` bytes) with `read(raw, at)`,
  /// which reads into `raw` the bytes `at` bytes after where this fill starts.
  ///
  /// - Throws: ``StorageError`` when a read fails or ends early.
  private func fill(
    upTo limit: Int64, _ read: (UnsafeMutableRawBufferPointer, Int) -> Int
  ) throws -> [ByteBuffer] {
    var out: [ByteBuffer] = []
    var total = 0
    while Int64(total) < limit, out.count < Self.copyBufferCount / 2 {
      let size = Int(min(Int64(Self.copyBufferSize), limit - Int64(total)))
      // Round-robin over the kept buffers: the one taken now was handed to the hash
      // `copyBufferCount` buffers ago. A buffer the hash still holds is copied on write, so it
      // is never overwritten under it.
      var buffer =
        copyBuffers.count < Self.copyBufferCount
        ? ByteBufferAllocator().buffer(capacity: Self.copyBufferSize) : copyBuffers.removeFirst()
      buffer.clear()
      var failed: Int32 = 0
      let got = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
        var n = 0
        while n < size {
          let r = read(UnsafeMutableRawBufferPointer(rebasing: raw[n..<size]), total + n)
          if r < 0, errno == EINTR { continue }
          if r <= 0 {
            failed = r < 0 ? errno : EIO
            break
          }
          n += r
        }
        return n
      }
      copyBuffers.append(buffer)
      guard failed == 0, got == size else {
        throw StorageError(operation: "read", path: path, code: failed == 0 ? EIO : failed)
      }
      out.append(buffer)
      total += size
    }
    return out
  }

  /// Counts written bytes and, every ``writebackInterval``, asks the kernel to start writing
  /// the new range to disk (`sync_file_range`, which neither waits nor flushes the drive's
  /// cache). The disk then writes beside the socket instead of after it: without this the page
  /// cache held the whole body and the final `fsync` waited for all of it, longer than the
  /// transfer itself for a large asset. Forcing durability every few megabytes with
  /// `fdatasync` instead measured slower: each one also flushes the drive's cache.
  private func wrote(_ count: Int) {
    bytesWritten += Int64(count)
    if isUnnamed {
      unnamedBytes?.add(count)
      countedUnnamed += count
    }
    guard bytesWritten - writebackStart >= Self.writebackInterval, fd >= 0 else { return }
    _ = cfw_start_writeback(fd, writebackStart, bytesWritten - writebackStart)
    writebackStart = bytesWritten
    writebacksStarted += 1
  }

  /// Bytes written between two writeback requests.
  static let writebackInterval: Int64 = 8 << 20

  /// The open descriptor, creating the file first when it was deferred.
  ///
  /// - Throws: ``StorageError`` when the file cannot be created.
  func descriptor() throws -> Int32 {
    if !created, mayBeUnnamed,
      let unnamed = folder.createUnnamed(probeName: { "probe.\(UniqueSuffix.next()).part" })
    {
      fd = unnamed
      isUnnamed = true
      created = true
    }
    if !created {
      // Another process's sweep may open the new file and take its lock before this one does:
      // wait for it (it holds the lock only to unlink), then make sure the file is still there.
      // A file unlinked meanwhile is made again, so no byte is written into a removed file.
      while true {
        let fd = try folder.createExclusive(name)
        var info = stat()
        if POSIX.lock(fd), fstat(fd, &info) == 0, info.st_nlink > 0 {
          self.fd = fd
          break
        }
        Glibc.close(fd)
      }
      created = true
    }
    return fd
  }

  /// Empties the file and restarts the hash (a server answered 200 to a resume, or a redirect).
  func reset() throws {
    hasher.reset()
    bytesWritten = 0
    uncount()
    writebackStart = 0
    guard created else { return }
    if ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) < 0 {
      throw StorageError(operation: "truncate", path: path, code: errno)
    }
  }

  /// The hash of everything written so far, leaving the running hash untouched (the finished
  /// body's hash, or a resume record's prefix).
  func hashOfWritten() -> String { hasher.snapshot().finalize().hexString }

  /// Flushes the bytes to disk (creating an empty file for an empty body). Most of a large
  /// body is on its way already: writeback was started every ``writebackInterval``.
  func sync() throws {
    try POSIX.fsync(try descriptor(), path: path)
  }

  /// Renames the file within its folder (the descriptor and its lock stay valid), replacing a
  /// file of that name (a target file put in place).
  func rename(to newName: String) throws {
    guard newName != name || isUnnamed else { return }
    _ = try descriptor()
    try giveName()
    guard newName != name else { return }
    try folder.rename(name, to: folder, as: newName)
    name = newName
  }

  /// Renames the file within its folder, never over an existing file (`EEXIST`): two processes
  /// starting the same download must not take each other's name for a kept partial. An unnamed
  /// file is given that name.
  func renameExclusively(to newName: String) throws {
    guard newName != name || isUnnamed else { return }
    _ = try descriptor()
    if isUnnamed {
      try giveName(newName)
      return
    }
    guard newName != name else { return }
    try folder.renameNoReplace(name, as: newName)
    name = newName
  }

  /// Gives an unnamed file a name in its folder (`name`, reserved when the partial was made,
  /// unless `newName` is given), never over an existing file; locked first, as a named partial
  /// is while open, so another process's sweep leaves it alone. Nothing for a named file.
  ///
  /// - Throws: ``StorageError`` (`EEXIST` when the name is taken).
  func giveName(_ newName: String? = nil) throws {
    guard isUnnamed else { return }
    // Nobody else can hold the lock of a file without a name: it is taken at once.
    _ = POSIX.lock(fd)
    try folder.linkUnnamed(fd, as: newName ?? name)
    name = newName ?? name
    isUnnamed = false
    uncount()  // a measure finds it by its name now
  }

  /// Takes back what the file added to ``CacheStore/unnamedBytes``.
  private func uncount() {
    guard countedUnnamed != 0 else { return }
    unnamedBytes?.add(-countedUnnamed)
    countedUnnamed = 0
  }

  /// Whether the file's name still names this file (no other process's file took it).
  var isStillNamed: Bool { fd >= 0 && !isUnnamed && folder.names(name, descriptor: fd) }

  /// Closes and deletes the file (after a failure, or when it was not moved into `objects/`);
  /// a name that no longer names this file is left to whoever holds it now. An unnamed file is
  /// only closed: the kernel frees it.
  func discard() {
    if fd >= 0, isStillNamed { folder.remove(name) }
    close()
  }

  /// Marks the file as moved elsewhere (committed), so `discard` no longer removes the name.
  func markMoved() { close() }

  /// Closes the descriptor (and releases the lock).
  func close() {
    if fd >= 0 {
      Glibc.close(fd)
      fd = -1
    }
    uncount()  // freed by the kernel, or linked in where a measure finds it
  }

  deinit { close() }
}
