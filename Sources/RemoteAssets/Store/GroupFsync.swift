import CFileWriteback
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Makes a group of files durable at once, from several threads or with one flush.
///
/// A group of ``fileSystemMinimum`` files or more on Linux 5.8 or later is made durable with one
/// `syncfs` per file system: the kernel writes every file's pages and metadata and flushes the
/// drive's cache once, where an `fsync` of each flushes it once per file. A first sync of 1,000
/// small assets made 2,068 fsyncs, 2 per asset (its bytes, its entry file), each waiting for the
/// drive. Measured on this machine kind (ext4, groups of 64 files): 16-19 ms per 1,024 files,
/// against 63-78 ms with eight fsyncs at a time.
///
/// What is durable is unchanged, and so is what fails:
/// - each regular file's own writeback errors since it was opened are read after the flush
///   (`sync_file_range` waiting on its pages, which are clean by then: no second flush), so a
///   file whose pages could not be written fails alone, as its `fsync` would;
/// - a failed `syncfs` (since 5.8 it reports the file system's writeback errors, metadata
///   included) fails every file of that file system;
/// - folders in a group are still fsynced each: ext4 without a journal writes a folder's blocks
///   after `syncfs`'s flush;
/// - a `syncfs` that is refused (ENOSYS, EPERM from a sandbox's seccomp filter, EINVAL,
///   EOPNOTSUPP) falls back to an fsync of each file.
///
/// The price: `syncfs` also writes what other processes left dirty on the same file system,
/// and waits for it. Small groups (an update of one asset, the usual case) keep their own
/// fsyncs for that reason, and so does any group while the system holds more than
/// ``dirtyLimit`` bytes dirty (a large copy or a build under way); so does a kernel before 5.8,
/// whose `syncfs` returns no errors.
///
/// The fsyncs of the other path run from several threads: the file system commits its journal
/// once for the fsyncs waiting together (ext4, XFS), where one fsync after another waits for one
/// journal commit each. The helpers are ``width`` - 1 plain threads of the process's own, never
/// the cooperative pool's, started by the first group and parked between groups. They used to be
/// started for each group and ended with it: a first sync of 1,000 assets started and ended 464
/// threads, each a stack mapped, faulted in and released.
enum GroupFsync {
  /// The most fsyncs in flight at once (the caller's thread is one of them).
  static let width = 8

  /// The helper threads' name in `ps -L` and `/proc` (at most 15 bytes, or Linux keeps the old
  /// one).
  static let helperThreadName = "aw-fsync"

  /// The smallest group made durable with `syncfs` rather than an fsync of each file.
  static let fileSystemMinimum = 4

  /// How a group is made durable.
  enum Method: Sendable {
    /// An fsync of each descriptor, up to ``width`` at once.
    case eachFile
    /// One `syncfs` per file system, then each file's own writeback errors; folders fsynced.
    case fileSystem
  }

  /// Whether `syncfs` reports writeback errors here (Linux 5.8 and later); read once.
  static let fileSystemSyncReportsErrors: Bool = {
    #if os(Linux)
      var names = utsname()
      guard uname(&names) == 0 else { return false }
      let release = withUnsafeBytes(of: &names.release) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      return kernel(release, isAtLeast: (5, 8))
    #else
      return false
    #endif
  }()

  /// Whether a kernel release (`6.1.0-13-amd64`) is `minimum` or later.
  static func kernel(_ release: String, isAtLeast minimum: (Int, Int)) -> Bool {
    let numbers = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
    guard numbers.count == 2 else { return false }
    return (numbers[0], numbers[1]) >= minimum
  }

  /// The most bytes the whole system may hold dirty or in writeback (`/proc/meminfo`) for a
  /// group to be flushed with `syncfs`. Above it a `syncfs` would wait for other programs'
  /// writes (a copy of a large file, a build), so the group's files are fsynced each.
  static let dirtyLimit: Int64 = 64 << 20

  /// The method for a group of `count` files, with the system's dirty bytes read now (only for
  /// a group large enough to use them).
  static func method(for count: Int) -> Method {
    guard count >= fileSystemMinimum, fileSystemSyncReportsErrors else { return .eachFile }
    return method(for: count, dirty: systemDirtyBytes())
  }

  /// The method for a group of `count` files while the system holds `dirty` bytes dirty or in
  /// writeback (nil: unknown, which keeps the fsyncs).
  static func method(for count: Int, dirty: Int64?) -> Method {
    guard count >= fileSystemMinimum, fileSystemSyncReportsErrors, let dirty, dirty <= dirtyLimit
    else { return .eachFile }
    return .fileSystem
  }

  /// The bytes the system holds dirty or in writeback (`Dirty` and `Writeback` of
  /// `/proc/meminfo`); nil where the file cannot be read.
  ///
  /// Read twice per commit group (its downloads' flush, its entry files'), so read as bytes:
  /// splitting the file's 55 lines into `String`s and words took 4.8 % of a first sync's CPU
  /// (1,000 small assets, 65 reads), more than the kernel's making of the text.
  static func systemDirtyBytes() -> Int64? {
    let fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    // A `/proc` file reports no size: read to its end (about 1.5 KB).
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0, errno == EINTR { continue }
      guard n >= 0 else { return nil }
      if n == 0 { break }
      bytes.append(contentsOf: chunk[..<n])
    }
    return dirtyBytes(meminfo: bytes)
  }

  /// `Dirty` plus `Writeback` of `/proc/meminfo`'s bytes (lines of `Name:   1234 kB`), in
  /// bytes; nil when either is missing.
  static func dirtyBytes(meminfo: [UInt8]) -> Int64? {
    var dirty: Int64?
    var writeback: Int64?
    var start = 0
    while start < meminfo.count {
      let end = meminfo[start...].firstIndex(of: UInt8(ascii: "\n")) ?? meminfo.count
      let line = meminfo[start..<end]
      start = end + 1
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
      let name = line[..<colon]
      let isDirty = name.elementsEqual("Dirty".utf8)
      guard isDirty || name.elementsEqual("Writeback".utf8) else { continue }
      // The value: spaces, digits, " kB".
      var index = line.index(after: colon)
      while index < line.endIndex, line[index] == UInt8(ascii: " ") { index += 1 }
      var kilobytes: Int64 = 0
      var digits = 0
      while index < line.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[index]),
        digits < 15
      {
        kilobytes = kilobytes * 10 + Int64(line[index] - UInt8(ascii: "0"))
        digits += 1
        index += 1
      }
      guard digits > 0, line[index...].elementsEqual(" kB".utf8) else { continue }
      if isDirty { dirty = kilobytes * 1024 } else { writeback = kilobytes * 1024 }
    }
    guard let dirty, let writeback else { return nil }
    return dirty + writeback
  }

  /// Makes every descriptor's file durable (``method(for:)``); returns 0 for each that
  /// succeeded, else its `errno`.
  static func sync(_ descriptors: [Int32]) -> [Int32] {
    sync(descriptors, method: method(for: descriptors.count))
  }

  /// Makes every descriptor's file durable by `method`; returns 0 for each that succeeded, else
  /// its `errno`.
  ///
  /// `flushFileSystem` is `syncfs` (tests pass one that fails: 0, or -1 with `errno` set).
  static func sync(
    _ descriptors: [Int32], method: Method,
    flushFileSystem: (Int32) -> Int32 = { cfw_sync_file_system($0) }
  ) -> [Int32] {
    switch method {
    case .eachFile: return syncEach(descriptors)
    case .fileSystem: return syncFileSystems(descriptors, flush: flushFileSystem)
    }
  }

  /// What a ``Method/fileSystem`` sync does with each descriptor of a group, by index.
  struct FileSystemPlan: Equatable {
    /// The descriptors to `syncfs` through: the first of each file system.
    var syncThrough: [Int] = []
    /// Regular files: after their file system's flush, their own writeback errors are read.
    var waits: [Int] = []
    /// Folders and other kinds: fsynced each.
    var fsyncs: [Int] = []
  }

  /// The plan for descriptors of `kinds` (nil: a descriptor `fstat` refused, left out).
  static func fileSystemPlan(_ kinds: [(device: UInt64, regular: Bool)?]) -> FileSystemPlan {
    var plan = FileSystemPlan()
    var devices: Set<UInt64> = []
    for (index, kind) in kinds.enumerated() {
      guard let kind else { continue }
      if devices.insert(kind.device).inserted { plan.syncThrough.append(index) }
      if kind.regular { plan.waits.append(index) } else { plan.fsyncs.append(index) }
    }
    return plan
  }

  /// One `syncfs` per file system of `descriptors` (``fileSystemPlan(_:)``); then each regular
  /// file's own writeback errors, and an fsync of each folder. A failed `syncfs` fails every
  /// descriptor of its file system; a refused one (``FlushOutcome/refused``) leaves them to
  /// their fsyncs.
  private static func syncFileSystems(_ descriptors: [Int32], flush: (Int32) -> Int32)
    -> [Int32]
  {
    var results = [Int32](repeating: 0, count: descriptors.count)
    let kinds = descriptors.enumerated().map { index, fd -> (device: UInt64, regular: Bool)? in
      var status = stat()
      guard fstat(fd, &status) == 0 else {
        results[index] = errno
        return nil
      }
      return (UInt64(status.st_dev), status.st_mode & S_IFMT == S_IFREG)
    }
    let plan = fileSystemPlan(kinds)
    // What each file system's flush answered: done, refused (its files are fsynced instead) or
    // failed (its files fail with the error).
    var flushes: [UInt64: FlushOutcome] = [:]
    for index in plan.syncThrough {
      let code = retrying { flush(descriptors[index]) }
      flushes[kinds[index]!.device] = FlushOutcome(code)
    }
    var fsyncs: [Int] = []
    for index in plan.waits + plan.fsyncs {
      switch flushes[kinds[index]!.device] {
      case .failed(let code): results[index] = code
      case .refused: fsyncs.append(index)
      case .done where kinds[index]!.regular:
        results[index] = retrying { cfw_wait_writeback(descriptors[index]) }
      default: fsyncs.append(index)
      }
    }
    for (index, code) in zip(fsyncs, syncEach(fsyncs.map { descriptors[$0] })) {
      results[index] = code
    }
    return results
  }

  /// What one `syncfs` answered.
  enum FlushOutcome: Equatable {
    /// Flushed.
    case done
    /// Not done here (ENOSYS, EPERM, EINVAL, EOPNOTSUPP): the files are fsynced instead.
    case refused
    /// A writeback error of the file system: every file on it fails with it.
    case failed(Int32)

    init(_ code: Int32) {
      switch code {
      case 0: self = .done
      case ENOSYS, EPERM, EINVAL, EOPNOTSUPP: self = .refused
      default: self = .failed(code)
      }
    }
  }

  /// `call`'s result as 0 or its `errno`, called again after EINTR.
  private static func retrying(_ call: () -> Int32) -> Int32 {
    while true {
      if call() == 0 { return 0 }
      if errno != EINTR { return errno }
    }
  }

  /// Fsyncs every descriptor, up to ``width`` at once.
  private static func syncEach(_ descriptors: [Int32]) -> [Int32] {
    guard descriptors.count > 1 else { return descriptors.map(syncOne) }
    let work = Work(descriptors)
    Helpers.shared.offer(work, helpers: min(width, descriptors.count) - 1)
    work.run()
    return work.awaitResults()
  }

  fileprivate static func syncOne(_ fd: Int32) -> Int32 {
    retrying { Glibc.fsync(fd) }
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
