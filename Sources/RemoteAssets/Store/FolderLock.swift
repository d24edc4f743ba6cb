import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// An exclusive `flock` on a folder's `.lock` file, held across suspension points: a TUF
/// refresh holds its metadata folder for a chain of network round trips, so two processes (or
/// two updaters) sharing the folder take turns and each starts from what the other persisted.
///
/// The lock file is opened read-write on each acquisition (a lock of its own: `flock` conflicts
/// between descriptors of one process too), never through a link, and never deleted; its name
/// matches no role file, and a TUF client reads only `*.json` there. (Not an `flock` of the
/// folder itself: on NFS the kernel emulates `flock` with byte-range locks, which an exclusive
/// lock needs a writable descriptor for, and a folder cannot be opened for writing.) The holder
/// writes its pid and name into it, for the message of one that gives up. Waiting never
/// blocks a thread: the lock is tried without waiting and the task sleeps between tries, 1 ms
/// doubling to 50 ms, until the deadline.
enum FolderLock {
  /// The lock file's name in the folder.
  static let fileName = ".lock"

  /// Why the lock was not taken.
  enum Failure: Error {
    /// Another descriptor held the lock for all of `waited` (less when the task was cancelled
    /// while it waited); `holder` as it wrote itself into the file ("process 42 (assetwatch)").
    case busy(waited: Duration, holder: String)
    /// The lock file could not be opened or locked.
    case storage(StorageError)
  }

  /// Runs `body` holding the folder's lock, waiting at most `timeout` for it; the lock is
  /// released when `body` returns or throws. `body` runs in the caller's isolation.
  ///
  /// - Throws: `failed(reason)` when the lock was not taken (`body` did not run), or what
  ///   `body` throws.
  static func withLock<T, E: Error>(
    on folder: DirectoryHandle, timeout: Duration,
    isolation: isolated (any Actor)? = #isolation,
    failed: (Failure) -> E,
    _ body: () async throws(E) -> T
  ) async throws(E) -> T {
    let fd: Int32
    do {
      fd = try await acquire(folder, timeout: timeout)
    } catch {
      throw failed(error)
    }
    defer { close(fd) }  // closing the descriptor releases the flock
    return try await body()
  }

  /// A new descriptor of the folder's lock file, holding its exclusive lock.
  private static func acquire(_ folder: DirectoryHandle, timeout: Duration) async throws(Failure)
    -> Int32
  {
    let fd: Int32
    do {
      fd = try folder.openFile(fileName, O_RDWR | O_CREAT)
    } catch {
      throw .storage(error)
    }
    let started = ContinuousClock.now
    var pause = Duration.milliseconds(1)
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      guard code == EWOULDBLOCK || code == EINTR else {
        close(fd)
        throw .storage(StorageError(operation: "flock", path: folder.child(fileName), code: code))
      }
      let waited = ContinuousClock.now - started
      guard waited < timeout, !Task.isCancelled else {
        let holder = CacheLock.holder(fd)
        close(fd)
        throw .busy(waited: min(waited, timeout), holder: holder)
      }
      try? await Task.sleep(for: pause)
      pause = min(pause * 2, .milliseconds(50))
    }
    CacheLock.recordHolder(fd)
    return fd
  }
}
