import Crypto
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Reading and hashing files through descriptors.
enum FileDigest {
  /// SHA-256 of everything from the descriptor's start, read in 1 MiB chunks.
  static func sha256(fd: Int32) throws -> String {
    var hasher = SHA256()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var offset: off_t = 0
    while true {
      let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
      if n < 0, errno == EINTR || clearedNonBlocking(fd) { continue }
      if n < 0 { throw StorageError(operation: "read", path: "fd \(fd)", code: errno) }
      if n == 0 { break }
      buffer.withUnsafeBytes {
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n]))
      }
      offset += off_t(n)
    }
    return hasher.finalize().hexString
  }

  /// Every byte of the file behind `fd` (up to its size then: `size`, from the caller's own
  /// `fstat` of `fd`, or an `fstat` here).
  static func readAll(_ fd: Int32, path: String, size known: Int? = nil) throws -> Data {
    var size = known ?? 0
    if known == nil {
      var info = stat()
      guard fstat(fd, &info) == 0 else {
        throw StorageError(operation: "stat", path: path, code: errno)
      }
      size = Int(info.st_size)
    }
    var data = Data(count: size)
    var offset = 0
    while offset < data.count {
      let n = data.withUnsafeMutableBytes {
        pread(fd, $0.baseAddress! + offset, $0.count - offset, off_t(offset))
      }
      if n < 0, errno == EINTR || clearedNonBlocking(fd) { continue }
      if n < 0 { throw StorageError(operation: "read", path: path, code: errno) }
      if n == 0 { break }
      offset += n
    }
    data.count = offset
    return data
  }

  /// After a read failed: when it failed with `EAGAIN` on a descriptor opened with
  /// `O_NONBLOCK` (kept on read-only opens, which Linux ignores for regular files; a file system
  /// that did not would say so here), clears the flag so the read can be made again, blocking.
  static func clearedNonBlocking(_ fd: Int32) -> Bool {
    guard errno == EAGAIN else { return false }
    let flags = fcntl(fd, F_GETFL)
    guard flags >= 0, flags & O_NONBLOCK != 0 else { return false }
    return fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0
  }
}
