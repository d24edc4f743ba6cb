import CFileWriteback
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
/// overlap. The helpers are ``width`` - 1 plain threads of the process's own, never the
/// cooperative pool's, started by the first group and parked between groups. They used to be
/// started for each group and ended with it: a first sync of 1,000 assets started and ended 464
/// threads, each a stack mapped, faulted in and released.
enum GroupFsync {
  /// The most fsyncs in flight at once (the caller's thread is one of them).
  static let width = 8

  /// The helper threads' name in `ps -L` and `/proc` (at most 15 bytes, or Linux keeps the old
  /// one).
  static let helperThreadName = "aw-fsync"

  /// Fsyncs every descriptor; returns 0 for each that succeeded, else its `errno`.
  static func sync(_ descriptors: [Int32]) -> [Int32] {
    guard descriptors.count > 1 else { return descriptors.map(syncOne) }
    let work = Work(descriptors)
    Helpers.shared.offer(work, helpers: min(width, descriptors.count) - 1)
    work.run()
    return work.awaitResults()
  }

  fileprivate static func syncOne(_ fd: Int32) -> Int32 {
    while true {
      if Glibc.fsync(fd) == 0 { return 0 }
      if errno != EINTR { return errno }
    }
  }

  /// The helper threads: each waits for a group offered to it, works on it until nothing is
  /// left to take, and waits again. A helper that comes late to a group finds nothing left and
  /// returns to waiting; the caller waits for the results, never for the helpers, so a group is
  /// done when its last fsync is.
  private final class Helpers: Sendable {
    static let shared = Helpers()

    /// Groups with descriptors not yet taken, oldest first, and how many helpers were started.
    private let state = Mutex<(offered: [Work], started: Int)>(([], 0))
    /// One signal per helper asked for a group.
    private let wakeups = DispatchSemaphore(value: 0)

    /// Asks `helpers` threads to work on `work` beside the caller.
    func offer(_ work: Work, helpers: Int) {
      guard helpers > 0 else { return }
      // `helpers` is below `width`: the pool never passes `width` - 1 threads.
      let newThreads = state.withLock { state -> Int in
        state.offered.append(work)
        defer { state.started = max(state.started, helpers) }
        return max(0, helpers - state.started)
      }
      for _ in 0..<newThreads {
        // Named from inside: Foundation's `Thread.name` does not reach the kernel here.
        Thread { [self] in
          _ = cfw_name_this_thread(GroupFsync.helperThreadName)
          serve()
        }.start()
      }
      for _ in 0..<helpers { wakeups.signal() }
    }

    /// A helper's life: wait for a wakeup, help the oldest group with work left, repeat.
    private func serve() {
      while true {
        wakeups.wait()
        let work = state.withLock { state -> Work? in
          state.offered.removeAll { $0.exhausted }
          return state.offered.first
        }
        work?.run()
      }
    }
  }

  /// The descriptors, the next one to take and the results, shared by the threads.
  private final class Work: Sendable {
    private let descriptors: [Int32]
    private let state: Mutex<(next: Int, finished: Int, results: [Int32])>
    /// Signalled by whoever records the last result.
    private let done = DispatchSemaphore(value: 0)

    init(_ descriptors: [Int32]) {
      self.descriptors = descriptors
      state = Mutex((0, 0, [Int32](repeating: 0, count: descriptors.count)))
    }

    /// Whether every descriptor has been taken (not necessarily fsynced yet).
    var exhausted: Bool { state.withLock { $0.next >= descriptors.count } }

    /// Takes descriptors one at a time until none is left.
    func run() {
      while true {
        let index = state.withLock { state -> Int in
          defer { state.next += 1 }
          return state.next
        }
        guard index < descriptors.count else { return }
        let code = GroupFsync.syncOne(descriptors[index])
        let last = state.withLock { state -> Bool in
          state.results[index] = code
          state.finished += 1
          return state.finished == descriptors.count
        }
        if last { done.signal() }
      }
    }

    /// Waits until every descriptor's fsync has returned; their results, in order.
    func awaitResults() -> [Int32] {
      done.wait()
      return state.withLock { $0.results }
    }
  }
}
