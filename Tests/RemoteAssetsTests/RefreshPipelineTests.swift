import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// A refresh holds its transfer slot for the transfer only: the next transfer runs while a
/// download waits for its commit, and the refreshes past their transfer are bounded (each holds
/// its partial file open). The commits are held back by the cache's commit lock, taken here as
/// another process would take it.
@Suite struct RefreshPipelineTests {
  static func assets(_ count: Int, at origin: LoopbackOrigin) async -> [AssetDefinition] {
    var assets: [AssetDefinition] = []
    for i in 0..<count {
      await origin.setResource(
        "/a\(i).json", body: Data(#"{"asset": \#(i)}"#.utf8), contentType: "application/json")
      assets.append(
        AssetDefinition(
          id: "a\(i)", remote: URL(string: "\(origin.baseURL)/a\(i).json"), format: .json))
    }
    return assets
  }

  /// Holds the commit lock of `cache` (as another process would) while `body` runs.
  static func holdingTheCommitLock<T>(_ cache: URL, _ body: () async throws -> T) async throws
    -> T
  {
    let fd = open(cache.appendingPathComponent(".lock").path, O_RDWR | O_CREAT, 0o600)
    #expect(fd >= 0)
    #expect(flock(fd, LOCK_EX) == 0)
    defer { close(fd) }  // releases the lock
    return try await body()
  }

  /// Polls (bounded) until `condition` holds; false when it never did.
  static func eventually(_ condition: () async -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
      if await condition() { return true }
      try await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
  }

  @Test func theNextTransferRunsWhileADownloadWaitsForItsCommit() async throws {
    try await withOrigin { origin in
      let assets = await Self.assets(2, at: origin)
      try await withEngine(
        assets,
        configure: {
          $0.maxConcurrentTransfers = 1
          $0.lockTimeout = .seconds(120)
        }
      ) { engine, dir in
        let (first, second) = try await Self.holdingTheCommitLock(dir.cache) {
          let first = Task { await engine.refresh("a0") }
          await origin.waitForRequests(path: "/a0.json", count: 1)
          let second = Task { await engine.refresh("a1") }
          // With the one transfer slot held until the commit, a1 would wait for the lock too.
          let started = try await Self.eventually {
            await origin.requestCount(path: "/a1.json") == 1
          }
          #expect(started)
          return (first, second)
        }
        #expect(await first.value.isUpdated)
        #expect(await second.value.isUpdated)
        #expect(engine.limiter.counts() == (0, 0, 0))
        #expect(engine.refreshes.counts() == (0, 0, 0))
      }
    }
  }

  @Test func refreshesPastTheirTransferAreBounded() async throws {
    try await withOrigin { origin in
      let assets = await Self.assets(80, at: origin)
      let transfers = 2
      let admitted = transfers + EntryCommitter.maxGroup
      try await withEngine(
        assets,
        configure: {
          $0.maxConcurrentTransfers = transfers
          $0.lockTimeout = .seconds(120)
        }
      ) { engine, dir in
        let all = try await Self.holdingTheCommitLock(dir.cache) {
          let all = Task { await engine.refreshAll() }
          // Every admitted refresh transfers and then waits for the lock; the rest wait to be
          // admitted, and none of them has asked the origin for anything.
          let settled = try await Self.eventually {
            engine.refreshes.counts().waiting == assets.count - admitted
              && engine.limiter.counts().regular == 0
          }
          #expect(settled)
          #expect(engine.refreshes.counts().regular == admitted)
          #expect(await origin.allRequests().count == admitted)
          return all
        }
        let outcomes = await all.value
        #expect(outcomes.count == assets.count)
        #expect(outcomes.allSatisfy { $0.outcome.isUpdated })
        #expect(await origin.allRequests().count == assets.count)
      }
    }
  }
}
