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

  /// Reopens a kept partial to continue it: cuts it to `prefix` bytes (the part known durable)
  /// and re-hashes that prefix (a SHA-256 state cannot be saved mid-way).
  init(resuming path: String, prefix: Int64) throws {
    fd = try POSIX.open(path, O_RDWR)
    self.path = path
    guard POSIX.tryLock(fd) else {
      Glibc.close(fd)
      throw StorageError(operation: "lock", path: path, code: EWOULDBLOCK)
    }
    if ftruncate(fd, off_t(prefix)) != 0 {
      let code = errno
      Glibc.close(fd)
      throw StorageError(operation: "truncate", path: path, code: code)
    }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var offset: Int64 = 0
    while offset < prefix {
      let n = buffer.withUnsafeMutableBytes {
        pread(fd, $0.baseAddress, min($0.count, Int(prefix - offset)), off_t(offset))
      }
      if n <= 0 {
        let code = n < 0 ? errno : EIO
        Glibc.close(fd)
        throw StorageError(operation: "read", path: path, code: code)
      }
      buffer.withUnsafeBytes {
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n]))
      }
      offset += Int64(n)
    }
    lseek(fd, off_t(prefix), SEEK_SET)
    bytesWritten = prefix
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
