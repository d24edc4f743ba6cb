import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The run locks a process holds, by cache folder and token: one open file description per
/// lock, however many engines of the process share the cache (a second `flock` on another
/// description of the same file would conflict with the first).
private let heldRunLocks = Mutex<[String: Int32]>([:])

extension CacheStore {
  /// Holds `tmp/run-<token>.lock` (``CacheLayout/runLock(token:)``) with `flock` until this
  /// process ends: while it is held, another process, in any PID namespace, knows the run that
  /// claimed a probation still runs; the kernel releases it however the process ends.
  ///
  /// - Returns: whether the lock is held (false for a read-only cache or a failure: the PID
  ///   rules then decide).
  @discardableResult
  func holdRunLock(token: String) -> Bool {
    guard let tmpFolder, !isReadOnly, RunIdentity.isToken(token) else { return false }
    let key = root.path + "\u{0}" + token
    return heldRunLocks.withLock { held in
      if held[key] != nil { return true }
      let name = CacheLayout.runLock(token: token)
      // A sweep in another process may remove the file between its creation and the lock:
      // only a lock on the file the name still names counts.
      for _ in 0..<3 {
        guard let fd = try? tmpFolder.openFile(name, O_RDWR | O_CREAT) else { return false }
        var mine = stat()
        guard POSIX.tryLock(fd), fstat(fd, &mine) == 0 else {
          Glibc.close(fd)
          return false
        }
        if let named = try? tmpFolder.status(name), named.st_ino == mine.st_ino,
          named.st_dev == mine.st_dev
        {
          held[key] = fd
          return true
        }
        Glibc.close(fd)
      }
      return false
    }
  }

  /// Whether the process of run `token` still runs, by its lock: true while some process
  /// holds it (this one included), false when nobody does (the file is removed then), nil when
  /// there is no lock to ask (an older version's run, or one whose lock was removed).
  func runIsLive(token: String) -> Bool? {
    guard let tmpFolder, RunIdentity.isToken(token) else { return nil }
    if heldRunLocks.withLock({ $0[root.path + "\u{0}" + token] != nil }) { return true }
    let name = CacheLayout.runLock(token: token)
    guard let fd = try? tmpFolder.openFile(name, O_RDONLY) else { return nil }
    defer { Glibc.close(fd) }  // releases the lock taken below, after the unlink
    guard POSIX.tryLock(fd) else { return true }
    if !isReadOnly { tmpFolder.remove(name) }
    return false
  }
}
