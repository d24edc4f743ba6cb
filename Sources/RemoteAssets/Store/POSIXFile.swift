import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A storage failure with the path and the OS error text.
public struct StorageError: Error, Sendable, CustomStringConvertible {
  /// What was being done ("fsync", "rename", ...).
  public var operation: String
  /// The path involved.
  public var path: String
  /// `errno` at the time.
  public var code: Int32

  public var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}

/// Thin, throwing wrappers over the POSIX calls the crash-safe commit needs.
///
/// Foundation's `Data.write(options: .atomic)` does not fsync the folder, so the commit point is
/// built from these instead (see notes/http-and-storage.md).
enum POSIX {
  static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(StorageError)
    -> Int32
  {
    let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
    if fd < 0 { throw StorageError(operation: "open", path: path, code: errno) }
    return fd
  }

  static func fsync(_ fd: Int32, path: String) throws(StorageError) {
    if Glibc.fsync(fd) != 0 { throw StorageError(operation: "fsync", path: path, code: errno) }
  }

  /// Makes a rename or unlink inside `directory` durable.
  static func fsyncDirectory(_ directory: String) throws(StorageError) {
    let fd = try open(directory, O_RDONLY | O_DIRECTORY)
    defer { close(fd) }
    try fsync(fd, path: directory)
  }

  static func rename(_ from: String, _ to: String) throws(StorageError) {
    if Glibc.rename(from, to) != 0 {
      throw StorageError(operation: "rename", path: "\(from) -> \(to)", code: errno)
    }
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

  /// Writes `data` to `path` durably: temp file, fsync, rename over, fsync of the folder.
  static func writeDurably(_ data: Data, to path: String) throws {
    let temp = path + ".tmp"
    let fd = try open(temp, O_WRONLY | O_CREAT | O_TRUNC)
    do {
      try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
        try writeAll(fd, raw, path: temp)
      }
      try fsync(fd, path: temp)
    } catch {
      close(fd)
      unlink(temp)
      throw error
    }
    close(fd)
    try rename(temp, path)
    try fsyncDirectory((path as NSString).deletingLastPathComponent)
  }

  /// Tries to take an exclusive `flock` without waiting; returns whether it was taken.
  static func tryLock(_ fd: Int32) -> Bool { flock(fd, LOCK_EX | LOCK_NB) == 0 }
}
