import CFileWriteback
import Foundation
import Synchronization
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// A group's flushes report each file's own result in order, by either method; a flush through
/// the file system leaves no page of any file unwritten; the helper threads are the process's
/// few parked ones, not threads started and ended for each group.
@Suite struct GroupFsyncTests {
  /// Files in a new folder, open for writing, each with a few bytes; closed by `body`'s end.
  static func withFiles<T>(_ count: Int, _ body: ([Int32]) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("groupfsync-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    var fds: [Int32] = []
    defer { for fd in fds { close(fd) } }
    for index in 0..<count {
      let fd = open(folder.appendingPathComponent("f\(index)").path, O_CREAT | O_WRONLY, 0o600)
      try #require(fd >= 0)
      fds.append(fd)
      _ = "file \(index)".withCString { write(fd, $0, strlen($0)) }
    }
    return try body(fds)
  }

  /// This process's threads: id and name.
  static func threadNames() -> [Int: String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.reduce(into: [:]) { names, tid in
      let comm = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8)
      if let id = Int(tid), let comm {
        names[id] = comm.trimmingCharacters(in: .whitespacesAndNewlines)
      }
    }
  }

  /// The ids of this process's threads named `name`.
  static func threads(named name: String) -> Set<Int> {
    Set(threadNames().filter { $0.value == name }.keys)
  }

  /// Waits, up to `seconds`, for `condition` (threads name themselves once they run).
  static func eventually(within seconds: Double, _ condition: () -> Bool) async -> Bool {
    let end = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < end {
      if condition() { return true }
      await Task.yield()
    }
    return condition()
  }

  @Test(arguments: [GroupFsync.Method.eachFile, .fileSystem])
  func eachFileGetsItsOwnResultInOrder(method: GroupFsync.Method) throws {
    try Self.withFiles(12) { fds in
      // A closed descriptor in the middle fails alone, at its own place.
      var group = fds
      group.insert(-1, at: 5)
      let results = GroupFsync.sync(group, method: method)
      #expect(results.count == 13)
      #expect(results[5] == EBADF)
      #expect(results.enumerated().allSatisfy { $0.offset == 5 || $0.element == 0 })
    }
  }

  @Test func aSingleFileIsSyncedOnTheCallersThread() throws {
    try Self.withFiles(1) { fds in
      #expect(GroupFsync.sync(fds) == [0])
      #expect(GroupFsync.sync([-1]) == [EBADF])
      #expect(GroupFsync.sync([]) == [])
    }
  }

  /// Groups one after another reuse the same helpers: no more than `width` - 1 exist, and the
  /// ones there after the first group are there after fifty more.
  @Test func helpersAreStartedOnceAndParked() async throws {
    try Self.withFiles(GroupFsync.width * 2) { fds in _ = GroupFsync.sync(fds, method: .eachFile) }
    let name = GroupFsync.helperThreadName
    let helpers = GroupFsync.width - 1
    let named = await Self.eventually(within: 10) { Self.threads(named: name).count == helpers }
    #expect(named, "threads: \(Self.threadNames().values.sorted())")
    let first = Self.threads(named: name)
    for _ in 0..<50 {
      let results = try Self.withFiles(GroupFsync.width) { GroupFsync.sync($0, method: .eachFile) }
      #expect(results == [Int32](repeating: 0, count: GroupFsync.width))
    }
    #expect(Self.threads(named: name) == first)
  }

  /// Groups from several threads at once each get all their results.
  @Test func concurrentGroupsAllFinish() {
    let counts = [2, 3, 9, 16, 5, 8, 1, 12]
    let results = Mutex<[[Int32]]>([])
    DispatchQueue.concurrentPerform(iterations: counts.count) { index in
      let synced = (try? Self.withFiles(counts[index]) { GroupFsync.sync($0) }) ?? []
      results.withLock { $0.append(synced) }
    }
    let all = results.withLock { $0 }
    #expect(all.map(\.count).sorted() == counts.sorted())
    #expect(all.allSatisfy { $0.allSatisfy { $0 == 0 } })
  }

  /// The dirty and in-writeback pages of `fd`'s file (nil where `cachestat` does not exist).
  static func unwritten(_ fd: Int32) -> (dirty: Int64, writeback: Int64)? {
    var dirty: Int64 = 0
    var writeback: Int64 = 0
    guard cfw_page_cache_state(fd, &dirty, &writeback) == 0 else { return nil }
    return (dirty, writeback)
  }

  /// Appends 64 KiB to each file: pages the kernel keeps dirty for 30 s unless flushed.
  static func dirty(_ fds: [Int32]) {
    let block = [UInt8](repeating: 0x61, count: 64 * 1024)
    for fd in fds { _ = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
  }

  /// Whether this kernel answers `cachestat` (6.5 and later).
  static let readsPageCache: Bool = (try? withFiles(1) { unwritten($0[0]) != nil }) ?? false

  /// Through the file system, every file of the group is on disk when the call returns: none
  /// keeps a dirty page or one still being written. Each file gets 64 KiB, so that before the
  /// flush its pages are dirty (the kernel writes dirty pages back only after 30 s or under
  /// memory pressure).
  @Test(.enabled(if: readsPageCache)) func aFlushThroughTheFileSystemLeavesNothingUnwritten()
    throws
  {
    try Self.withFiles(16) { fds in
      Self.dirty(fds)
      let before = fds.compactMap(Self.unwritten).map { $0.dirty + $0.writeback }
      #expect(before.reduce(0, +) > 0, "nothing was dirty: the test shows nothing")
      #expect(GroupFsync.sync(fds, method: .fileSystem) == [Int32](repeating: 0, count: 16))
      for fd in fds {
        let after = try #require(Self.unwritten(fd))
        #expect(after.dirty == 0 && after.writeback == 0, "fd \(fd): \(after)")
      }
    }
  }

  /// A folder in a group is fsynced on its own after the flush, and succeeds.
  @Test func aFolderInAFileSystemGroupIsFlushed() throws {
    try Self.withFiles(6) { fds in
      let folder = open(FileManager.default.temporaryDirectory.path, O_RDONLY | O_DIRECTORY)
      try #require(folder >= 0)
      defer { close(folder) }
      #expect(
        GroupFsync.sync(fds + [folder], method: .fileSystem) == [Int32](repeating: 0, count: 7))
    }
  }

  /// One `syncfs` per file system, through its first descriptor; regular files wait on their own
  /// pages, folders are fsynced; a descriptor `fstat` refused is in no list.
  @Test func theFileSystemPlanSyncsEachFileSystemOnce() {
    let plan = GroupFsync.fileSystemPlan([
      (device: 7, regular: true), (device: 9, regular: true), (device: 7, regular: false), nil,
      (device: 9, regular: true), (device: 7, regular: true),
    ])
    #expect(plan.syncThrough == [0, 1])
    #expect(plan.waits == [0, 1, 4, 5])
    #expect(plan.fsyncs == [2])
    #expect(GroupFsync.fileSystemPlan([nil, nil]) == GroupFsync.FileSystemPlan())
  }

  /// Small groups keep their own fsyncs (``GroupFsync/fileSystemMinimum``); larger ones flush
  /// the file system where its `syncfs` reports errors (Linux 5.8).
  @Test func theMethodFollowsTheGroupSizeTheDirtyBytesAndTheKernel() {
    let minimum = GroupFsync.fileSystemMinimum
    let limit = GroupFsync.dirtyLimit
    #expect(GroupFsync.method(for: 1, dirty: 0) == .eachFile)
    #expect(GroupFsync.method(for: minimum - 1, dirty: 0) == .eachFile)
    let large = GroupFsync.method(for: minimum, dirty: limit)
    #expect(large == (GroupFsync.fileSystemSyncReportsErrors ? .fileSystem : .eachFile))
    // Another program's writes waiting, or nothing known about them: each file its fsync.
    #expect(GroupFsync.method(for: 64, dirty: limit + 1) == .eachFile)
    #expect(GroupFsync.method(for: 64, dirty: nil) == .eachFile)
    #expect(GroupFsync.kernel("6.18.44-fc-v509", isAtLeast: (5, 8)))
    #expect(GroupFsync.kernel("5.8.0", isAtLeast: (5, 8)))
    #expect(GroupFsync.kernel("5.10.0-28-amd64", isAtLeast: (5, 8)))
    #expect(!GroupFsync.kernel("5.7.19", isAtLeast: (5, 8)))
    #expect(!GroupFsync.kernel("4.19.0-25-amd64", isAtLeast: (5, 8)))
    #expect(!GroupFsync.kernel("", isAtLeast: (5, 8)))
    #expect(!GroupFsync.kernel("linux", isAtLeast: (5, 8)))
  }

  /// A `syncfs` a sandbox or file system refuses falls back to fsyncs; a writeback error fails
  /// the files.
  @Test func aRefusedFlushFallsBackAndAFailedOneFails() {
    #expect(GroupFsync.FlushOutcome(0) == .done)
    for refused in [ENOSYS, EPERM, EINVAL, EOPNOTSUPP] {
      #expect(GroupFsync.FlushOutcome(refused) == .refused)
    }
    for failed in [EIO, ENOSPC, EDQUOT, EROFS] {
      #expect(GroupFsync.FlushOutcome(failed) == .failed(failed))
    }
  }

  /// Through a `syncfs` that is refused, every file is fsynced instead and succeeds; through one
  /// that fails, every file fails with its error (none is reported durable).
  @Test func aFileSystemGroupFallsBackOrFailsWithItsFlush() throws {
    try Self.withFiles(6) { fds in
      Self.dirty(fds)
      let refused = GroupFsync.sync(fds, method: .fileSystem) { _ in
        errno = EPERM
        return -1
      }
      #expect(refused == [Int32](repeating: 0, count: 6))
      // The fsyncs of the fallback did write every file.
      if Self.readsPageCache {
        for fd in fds { #expect(Self.unwritten(fd).map { $0.dirty + $0.writeback } == 0) }
      }
      let failed = GroupFsync.sync(fds, method: .fileSystem) { _ in
        errno = EIO
        return -1
      }
      #expect(failed == [Int32](repeating: EIO, count: 6))
    }
  }

  /// The system's dirty bytes are `Dirty` plus `Writeback` of `/proc/meminfo`, in bytes.
  @Test func theDirtyBytesAreReadFromMeminfo() {
    let text = """
      MemTotal:       24684100 kB
      Dirty:            489596 kB
      Writeback:            12 kB
      WritebackTmp:          0 kB
      """
    let expected: Int64 = (489_596 + 12) * 1024
    #expect(GroupFsync.dirtyBytes(meminfo: text) == expected)
    #expect(GroupFsync.dirtyBytes(meminfo: "MemTotal: 1 kB\nDirty: 5 kB") == nil)
    #expect(GroupFsync.dirtyBytes(meminfo: "") == nil)
    // `WritebackTmp` is not `Writeback`; a value that is not kB, or too long for the count
    // of bytes, is not read.
    #expect(GroupFsync.dirtyBytes(meminfo: "Dirty: 5 kB\nWritebackTmp: 7 kB") == nil)
    #expect(GroupFsync.dirtyBytes(meminfo: "Dirty: 5 kB\nWriteback: 7 MB") == nil)
    #expect(GroupFsync.dirtyBytes(meminfo: "Dirty: 5 kB\nWriteback: 9999999999999999999 kB") == nil)
    #expect(GroupFsync.dirtyBytes(meminfo: "Writeback: 7 kB\nDirty:5 kB\n") == Int64(12 * 1024))
    #if os(Linux)
      #expect(GroupFsync.systemDirtyBytes() != nil)
    #endif
  }
}

extension GroupFsync {
  /// `Dirty` plus `Writeback` of `/proc/meminfo`'s text, in bytes: the tests' way in to
  /// ``dirtyBytes(meminfo:)``, which reads bytes.
  static func dirtyBytes(meminfo: String) -> Int64? {
    dirtyBytes(meminfo: Array(meminfo.utf8))
  }
}
