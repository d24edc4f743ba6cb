import Crypto
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A file in `tmp/` that a download streams into, hashing as it goes.
///
/// It is `flock`ed while open so a sweep by another process leaves it alone.
///
/// `@unchecked Sendable` is safe because a `PartialFile` is created inside `DownloadSink.init` and
/// stored only in that sink's `Mutex`; it is never handed out, so every access is serialized by the
/// lock. (Without it, passing a caller's buffer into the locked state trips region isolation.)
final class PartialFile: @unchecked Sendable {
  let path: String
  private(set) var fd: Int32
  private(set) var bytesWritten: Int64 = 0
  private var hasher = SHA256()

  init(path: String) throws {
    fd = try POSIX.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, mode: 0o644)
    _ = POSIX.tryLock(fd)
    self.path = path
  }

  /// Appends bytes and feeds them to the hash.
  func write(_ bytes: UnsafeRawBufferPointer) throws {
    try POSIX.writeAll(fd, bytes, path: path)
    hasher.update(bufferPointer: bytes)
    bytesWritten += Int64(bytes.count)
  }

  /// Empties the file and restarts the hash (a server answered 200 to a resume, or a redirect).
  func reset() throws {
    if ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) < 0 {
      throw StorageError(operation: "truncate", path: path, code: errno)
    }
    hasher = SHA256()
    bytesWritten = 0
  }

  /// The hash of everything written.
  func finalizeHash() -> String { hasher.finalize().hexString }

  /// Flushes the bytes to disk.
  func sync() throws { try POSIX.fsync(fd, path: path) }

  /// Closes and deletes the file (after a failure, or when it was not moved into `objects/`).
  func discard() {
    close()
    unlink(path)
  }

  /// Closes the descriptor (and releases the lock).
  func close() {
    if fd >= 0 {
      Glibc.close(fd)
      fd = -1
    }
  }

  deinit { close() }
}
