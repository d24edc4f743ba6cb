import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `fsync` of a group of files at once, from several threads: the file system commits the
/// journal once for the fsyncs waiting together (ext4, XFS), where one fsync after another
/// waits for one journal commit each. A group commit of 64 entries took 64 commits in a row.
///
/// Each file is still fsynced on its own, so what is durable is unchanged; only the waits
/// overlap. The helper threads are plain threads, never the cooperative pool's.
enum GroupFsync {
  /// The most fsyncs in flight at once (the caller's thread is one of them).
  static let width = 8

  /// Fsyncs every descriptor; returns 0 for each that succeeded, else its `errno`.
  static func sync(_ descriptors: [Int32]) -> [Int32] {
    guard descriptors.count > 1 else { return descriptors.map(syncOne) }
    let work = Work(descriptors)
    let helpers = min(width, descriptors.count) - 1
    let finished = DispatchSemaphore(value: 0)
    for _ in 0..<helpers {
      let thread = Thread {
        work.run()
        finished.signal()
      }
      thread.name = "assetwatch-fsync"
      thread.start()
    }
    work.run()
    for _ in 0..<helpers { finished.wait() }
    return work.results
  }

  private static func syncOne(_ fd: Int32) -> Int32 {
    while true {
      if Glibc.fsync(fd) == 0 { return 0 }
      if errno != EINTR { return errno }
    }
  }

  /// The descriptors, the next one to take and the results, shared by the threads.
  private final class Work: Sendable {
    private let descriptors: [Int32]
    private let state: Mutex<(next: Int, results: [Int32])>

    init(_ descriptors: [Int32]) {
      self.descriptors = descriptors
      state = Mutex((0, [Int32](repeating: 0, count: descriptors.count)))
    }

    /// Takes descriptors one at a time until none is left.
    func run() {
      while true {
        let index = state.withLock { state -> Int in
          defer { state.next += 1 }
          return state.next
        }
        guard index < descriptors.count else { return }
        let code = GroupFsync.syncOne(descriptors[index])
        state.withLock { $0.results[index] = code }
      }
    }

    var results: [Int32] { state.withLock { $0.results } }
  }
}
