import Foundation
import Synchronization
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// A group's fsyncs report each file's own result in order, and the helper threads are the
/// process's few parked ones, not threads started and ended for each group.
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

  @Test func eachFileGetsItsOwnResultInOrder() throws {
    try Self.withFiles(12) { fds in
      // A closed descriptor in the middle fails alone, at its own place.
      var group = fds
      group.insert(-1, at: 5)
      let results = GroupFsync.sync(group)
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
    try Self.withFiles(GroupFsync.width * 2) { fds in _ = GroupFsync.sync(fds) }
    let name = GroupFsync.helperThreadName
    let helpers = GroupFsync.width - 1
    let named = await Self.eventually(within: 10) { Self.threads(named: name).count == helpers }
    #expect(named, "threads: \(Self.threadNames().values.sorted())")
    let first = Self.threads(named: name)
    for _ in 0..<50 {
      let results = try Self.withFiles(GroupFsync.width) { GroupFsync.sync($0) }
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
}
