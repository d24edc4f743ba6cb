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
      let store = try CacheStore(root: dir.cache)
      let committer = EntryCommitter(store: store)
      // Another holder of the commit lock (as another process would be).
      let fd = open(dir.cache.appendingPathComponent(".lock").path, O_RDWR | O_CREAT, 0o600)
      #expect(flock(fd, LOCK_EX) == 0)
      let results = try await withThrowingTaskGroup(of: Bool.self) { group in
        for i in 0..<20 {
          group.addTask {
            if case .success = await committer.commit(write("a\(i)", version: "v\(i)")) {
              return true
            }
            return false
          }
        }
        // The first group waits for the lock; the other nineteen queue behind it.
        let deadline = ContinuousClock.now + .seconds(30)
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

  @Test func oneFailedWriteDoesNotFailTheRestOfItsGroup() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      var bad = write("b", version: "x")
      bad.change = { $0.id = "../escape" }  // refused by the entry writer
      let results = EntryCommitter.write(
        [write("a", version: "1"), bad, write("c", version: "3")], store: store)
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
