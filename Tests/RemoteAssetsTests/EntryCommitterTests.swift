import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// Entry writes leave the actor and share the commit lock and folder flushes with the writes
/// that queue up behind them.
@Suite struct EntryCommitterTests {
  func write(_ id: String, version: String) -> EntryCommitter.Write {
    EntryCommitter.Write(
      id: id, ours: CacheEntry(id: id, appVersion: "1"), lastSynced: nil, blob: nil,
      change: { $0.lastError = AssetErrorRecord(kind: .storage, message: version, at: Date()) })
  }

  @Test func writesQueuedBehindABusyLockGoToDiskAsOneGroup() async throws {
    try await withTemporaryDirectory { dir in
      // A lock timeout far beyond the test's waits: a loaded machine must not turn the wait
      // into a failure.
      let store = try CacheStore(root: dir.cache, lockTimeout: .seconds(120))
      let committer = EntryCommitter(store: store)
      // Another holder of the commit lock (as another process would be).
      let fd = open(dir.cache.appendingPathComponent(".lock").path, O_RDWR | O_CREAT, 0o600)
      #expect(flock(fd, LOCK_EX) == 0)
      let results = try await withThrowingTaskGroup(of: Bool.self) { group in
        func commit(_ i: Int) {
          group.addTask {
            if case .success = await committer.commit(write("a\(i)", version: "v\(i)")) {
              return true
            }
            return false
          }
        }
        // The first write's group goes out and waits for the lock ...
        commit(0)
        let deadline = ContinuousClock.now + .seconds(60)
        while await committer.groups < 1, ContinuousClock.now < deadline {
          try await Task.sleep(for: .milliseconds(5))
        }
        // ... and the other nineteen queue behind it.
        for i in 1..<20 { commit(i) }
        while await committer.waiting < 19, ContinuousClock.now < deadline {
          try await Task.sleep(for: .milliseconds(5))
        }
        close(fd)  // releases the lock
        return try await group.reduce(into: [Bool]()) { $0.append($1) }
      }
      #expect(results.count == 20 && results.allSatisfy { $0 })
      #expect(await committer.groups == 2)
      for i in 0..<20 {
        #expect(try store.readEntry("a\(i)")?.lastError?.message == "v\(i)")
      }
    }
  }

  /// A group's entry files are fsynced together and then renamed: every entry that can be
  /// written is, one that cannot (its name taken by a folder) fails alone, and no temp file is
  /// left behind.
  @Test func aGroupWritesEveryEntryItCanAndLeavesNoTemp() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache, lockTimeout: .seconds(120))
      let entries = dir.cache.appendingPathComponent("entries")
      try FileManager.default.createDirectory(
        at: entries.appendingPathComponent("a3.json"), withIntermediateDirectories: true)
      let writes = (0..<12).map { write("a\($0)", version: "v\($0)") }
      let results = try #require(EntryCommitter.write(writes, store: store))
      for (i, result) in results.enumerated() {
        switch result {
        case .success(let committed):
          #expect(i != 3)
          #expect(committed.entry.lastError?.message == "v\(i)")
          #expect(committed.syncedStamp != nil)
          #expect(try store.readEntry("a\(i)")?.lastError?.message == "v\(i)")
        case .failure:
          #expect(i == 3)
        }
      }
      let left = try FileManager.default.contentsOfDirectory(atPath: entries.path)
      #expect(left.filter { $0.hasSuffix(".tmp") } == [])
      #expect(left.count == 12)
    }
  }

  /// Commits waiting for another process's lock hold no thread of the blocking-I/O pool: with
  /// more waiting groups than the pool has threads, other disk work still runs at once. (When a
  /// wait held a thread, it ran only after the waits gave up, so the commits had ended first.)
  @Test func commitsWaitingForTheLockLeaveTheIOPoolFree() async throws {
    try await withTemporaryDirectory { dir in
      let waiters = ProcessInfo.processInfo.activeProcessorCount + 1
      let committers = try (0..<waiters).map { _ in
        EntryCommitter(store: try CacheStore(root: dir.cache, lockTimeout: .seconds(60)))
      }
      let fd = open(dir.cache.appendingPathComponent(".lock").path, O_RDWR | O_CREAT, 0o600)
      #expect(flock(fd, LOCK_EX) == 0)
      let ended = EndedCommits()
      let writes = (0..<waiters).map { write("a\($0)", version: "v") }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for (i, committer) in committers.enumerated() {
          group.addTask {
            _ = await committer.commit(writes[i])
            await ended.add()
          }
        }
        // Every committer has a group out waiting for the lock.
        let deadline = ContinuousClock.now + .seconds(30)
        for committer in committers {
          while await committer.groups == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
          }
        }
        let other = try await IOExecutor.run { 42 }
        #expect(other == 42)
        #expect(await ended.count == 0, "the pool ran other work while the commits waited")
        close(fd)  // releases the lock
        try await group.waitForAll()
      }
      #expect(await ended.count == waiters)
      for i in 0..<waiters { #expect(try store(dir).readEntry("a\(i)") != nil) }
    }
  }

  func store(_ dir: TemporaryDirectory) throws -> CacheStore { try CacheStore(root: dir.cache) }

  @Test func oneFailedWriteDoesNotFailTheRestOfItsGroup() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      var bad = write("b", version: "x")
      bad.change = { $0.id = "../escape" }  // refused by the entry writer
      let results = try #require(
        EntryCommitter.write(
          [write("a", version: "1"), bad, write("c", version: "3")], store: store))
      #expect(results.count == 3)
      if case .failure = results[1] {} else { Issue.record("the bad write should fail") }
      for (index, id) in [(0, "a"), (2, "c")] {
        if case .success(let committed) = results[index] {
          #expect(committed.entry.id == id)
          #expect(committed.syncedStamp != nil)
        } else {
          Issue.record("\(id) should be written")
        }
      }
      #expect(try store.readEntry("c")?.lastError?.message == "3")
      #expect(
        !FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("escape.json").path))
    }
  }
}

/// How many commits have returned.
private actor EndedCommits {
  private(set) var count = 0
  func add() { count += 1 }
}
