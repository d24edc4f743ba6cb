import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The cross-process commit lock: `flock` on `<cache>/.lock`, a file that is never deleted.
///
/// `flock` (not `fcntl` locks, which any close of the file drops) is held for the few system
/// calls of a commit. Waits are bounded: after `timeout` the caller gets an error that names the
/// process holding the lock, which writes its pid and name into the file when it takes it.
struct CacheLock: Sendable {
  let folder: DirectoryHandle
  let timeout: Duration

  /// Runs `body` holding the lock, waiting at most `timeout` for it.
  ///
  /// - Throws: ``CacheLockTimeout`` (naming the holder) when the wait times out, or what `body`
  ///   throws.
  func withLock<T>(_ body: () throws -> T) throws -> T {
    let fd = try folder.openFile(CacheLayout.lock, O_RDWR | O_CREAT)
    defer { close(fd) }  // closing releases the flock
    let deadline = ContinuousClock.now + timeout
    var pause = Duration.milliseconds(1)
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR else {
        throw StorageError(operation: "flock", path: folder.child(CacheLayout.lock), code: errno)
      }
      guard ContinuousClock.now < deadline else {
        throw CacheLockTimeout(
          path: folder.child(CacheLayout.lock), holder: Self.holder(fd), waited: timeout)
      }
      Self.pause(pause)
      pause = min(pause * 2, .milliseconds(50))
    }
    Self.recordHolder(fd)
    return try body()
  }

  /// Runs `body` holding the lock only if it is free now; returns nil when another process holds
  /// it (housekeeping such as the sweep is skipped rather than waited for).
  func withLockIfFree<T>(_ body: () throws -> T) throws -> T? {
    let fd = try folder.openFile(CacheLayout.lock, O_RDWR | O_CREAT)
    defer { close(fd) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return nil }
    Self.recordHolder(fd)
    return try body()
  }

  /// The error of a wait that gave up now: names the holder (read from the lock file).
  func timeoutError() -> CacheLockTimeout {
    let path = folder.child(CacheLayout.lock)
    guard let fd = try? folder.openFile(CacheLayout.lock, O_RDONLY) else {
      return CacheLockTimeout(path: path, holder: "another process", waited: timeout)
    }
    defer { close(fd) }
    return CacheLockTimeout(path: path, holder: Self.holder(fd), waited: timeout)
  }

  /// Writes "pid name" into the lock file, for the message of a waiter that gives up; leaves
  /// the file alone when it says so already. A commit takes the lock for every group, and
  /// truncating the file waited for the flush that was writing its page out (`syncfs` flushes
  /// it with the group's files): 50 waits in a first sync of 1,000 assets on ext4.
  static func recordHolder(_ fd: Int32) {
    let bytes = Array("\(getpid()) \(processName)\n".utf8)
    // One byte more than the text: a longer file (another holder's text) reads more.
    var held = [UInt8](repeating: 0, count: bytes.count + 1)
    let length = pread(fd, &held, held.count, 0)
    if length == bytes.count, held.prefix(length).elementsEqual(bytes) { return }
    _ = pwrite(fd, bytes, bytes.count, 0)
    if length > bytes.count { _ = ftruncate(fd, off_t(bytes.count)) }
  }

  /// This process's name, as the holder's text gives it.
  private static let processName = ProcessInfo.processInfo.processName

  /// Who holds the lock, as its holder wrote it ("process 1234 (assetwatch)").
  static func holder(_ fd: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 128)
    let n = pread(fd, &buffer, buffer.count, 0)
    let fields = String(decoding: buffer.prefix(max(0, n)), as: UTF8.self)
      .split(whereSeparator: \.isWhitespace)
    guard let pid = fields.first, pid.allSatisfy(\.isNumber) else { return "another process" }
    let name = fields.dropFirst().first.map { " (\(TerminalText.sanitize(String($0))))" } ?? ""
    return "process \(pid)\(name)"
  }

  private static func pause(_ duration: Duration) {
    var request = timespec(
      tv_sec: Int(duration.components.seconds),
      tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
  }
}

/// A commit lock that stayed held longer than the engine waits.
struct CacheLockTimeout: Error, CustomStringConvertible {
  var path: String
  var holder: String
  var waited: Duration

  var description: String {
    "the cache lock \(path) is held by \(holder); gave up after \(DurationText.format(waited.timeInterval))"
  }
}

extension Duration {
  /// The duration in seconds, as a `TimeInterval`.
  var timeInterval: TimeInterval {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
