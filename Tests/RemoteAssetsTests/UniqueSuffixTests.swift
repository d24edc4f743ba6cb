import AssetWatchTestKit
import Dispatch
import Synchronization
import Testing

@testable import RemoteAssets

/// Temp and partial names take their suffix from `UniqueSuffix`: no two in a process are the
/// same, however many threads ask at once.
@Suite struct UniqueSuffixTests {
  @Test func suffixesTakenOnManyThreadsAtOnceAreAllDifferent() {
    let taken = Mutex([UInt64]())
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      var mine: [UInt64] = []
      for _ in 0..<2_000 { mine.append(UniqueSuffix.next()) }
      taken.withLock { $0.append(contentsOf: mine) }
    }
    let all = taken.withLock { $0 }
    #expect(all.count == 16_000)
    #expect(Set(all).count == all.count)
  }

  /// Two partials made for one asset, one after the other, have different names (each is
  /// created with `O_EXCL`, so a repeated name would fail the second download).
  @Test func twoPartialsForOneAssetHaveDifferentNames() async throws {
    try await withTemporaryDirectory { directory in
      let store = try CacheStore(root: directory.cache)
      let first = try store.createPartial(for: "flags")
      let second = try store.createPartial(for: "flags")
      #expect(first.name != second.name)
      #expect(first.name.hasPrefix("flags.") && first.name.hasSuffix(".part"))
    }
  }
}
