import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A storage failure with the path and the OS error text.
package struct StorageError: Error, Sendable, CustomStringConvertible {
  /// What was being done ("fsync", "rename", ...).
  public var operation: String
  /// The path involved.
  public var path: String
  /// `errno` at the time.
  public var code: Int32

  public var description: String { "\(operation) \(path): \(reason)" }

  /// The OS's words for `code`.
  public var reason: String { String(cString: strerror(code)) }
}

/// Thin, throwing wrappers over the POSIX calls the store needs beyond ``DirectoryHandle``.
enum POSIX {
  static func fsync(_ fd: Int32, path: String) throws(StorageError) {
    if Glibc.fsync(fd) != 0 { throw StorageError(operation: "fsync", path: path, code: errno) }
  }

  /// A second descriptor of the same open file (closed on exec), for the caller to close.
  static func duplicate(_ fd: Int32, path: String) throws(StorageError) -> Int32 {
    let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
    if copy < 0 { throw StorageError(operation: "dup", path: path, code: errno) }
    return copy
  }

  static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String)
    throws(StorageError)
  {
    var offset = 0
    while offset < bytes.count {
      let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        throw StorageError(operation: "write", path: path, code: errno)
      }
      offset += n
    }
  }

  /// Tries to take an exclusive `flock` without waiting; returns whether it was taken.
  static func tryLock(_ fd: Int32) -> Bool { flock(fd, LOCK_EX | LOCK_NB) == 0 }
  /// Takes the exclusive `flock` of `fd`, waiting for it (retried after a signal).
  static func lock(_ fd: Int32) -> Bool {
    while flock(fd, LOCK_EX) != 0 {
      guard errno == EINTR else { return false }
    }
    return true
  }
}
