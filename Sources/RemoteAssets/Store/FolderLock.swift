import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// An exclusive `flock` on a folder itself, held across suspension points: a TUF refresh holds
/// its metadata folder for a chain of network round trips, so two processes (or two updaters)
/// sharing the folder take turns and each starts from what the other persisted.
///
/// The lock is taken on a new descriptor of the folder (`openat(fd, ".")`), so nothing is added
/// to the folder (a TUF client's metadata folder holds role files only) and each holder has its
/// own open file description (`flock` conflicts between descriptors of one process too). Waiting
/// never blocks a thread: the lock is tried without waiting and the task sleeps between tries,
/// 1 ms doubling to 50 ms, until the deadline.
enum FolderLock {
  /// Why the lock was not taken.
  enum Failure: Error {
    /// Another descriptor held the lock for all of `waited`.
    case busy(waited: Duration)
    /// The folder could not be opened or locked.
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

  /// A new descriptor of `folder` holding its exclusive lock.
  private static func acquire(_ folder: DirectoryHandle, timeout: Duration) async throws(Failure)
    -> Int32
  {
    let fd = openat(folder.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd < 0 {
      throw .storage(StorageError(operation: "open folder", path: folder.path, code: errno))
    }
    let deadline = ContinuousClock.now + timeout
    var pause = Duration.milliseconds(1)
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      guard code == EWOULDBLOCK || code == EINTR else {
        close(fd)
        throw .storage(StorageError(operation: "flock", path: folder.path, code: code))
      }
      guard ContinuousClock.now < deadline, !Task.isCancelled else {
        close(fd)
        throw .busy(waited: timeout)
      }
      try? await Task.sleep(for: pause)
      pause = min(pause * 2, .milliseconds(50))
    }
    return fd
  }
}
