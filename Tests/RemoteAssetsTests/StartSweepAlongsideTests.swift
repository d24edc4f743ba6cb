import AssetModel
import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// A start that sweeps alongside (`StartSweep.alongside`, what a one-shot `refresh` asks for)
/// returns once the entries are read and tidies the cache beside what follows: it removes what
/// a sweep before returning removes, keeps what the refresh that follows commits, tells
/// subscribers the cache's size when it ends (after the start's snapshot, which shows it ran
/// beside), and shutdown waits for it. Which of the sweep and the refresh's commit takes the
/// lock first is left to the run: the lock orders them, and both orders must keep the commit.
@Suite struct StartSweepAlongsideTests {
  @Test func aSweepBesideARefreshTidiesTheCacheAndKeepsWhatTheRefreshCommits() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { directory in
        let f = try CacheBudgetTests.Fixture(directory)
        let served = try f.blob(1)
        let unnamed = try f.blob(2)
        try f.entry("model", current: served, previous: nil)
        let stalePartial = f.cache.appendingPathComponent("tmp/model.123.part")
        try Data("half a download".utf8).write(to: stalePartial)
        let entryTemp = f.cache.appendingPathComponent("entries/model.json.77.tmp")
        try Data("{".utf8).write(to: entryTemp)

        var next = Data(count: CacheBudgetTests.Fixture.size)
        next[0] = 9
        await origin.setResource(
          "/model.bin", body: next, contentType: "application/octet-stream",
          lastModified: CacheBudgetTests.t0 + 60)
        let asset = AssetDefinition(
          id: "model", remote: URL(string: "\(origin.baseURL)/model.bin"), format: .binary)
        let engine = try makeTestEngine([asset], cache: f.cache)
        await engine.start(only: nil, sweep: .alongside)
        #expect(await engine.refresh("model").word == "updated")
        let committed = try #require(await engine.status("model")?.sha256)

        await engine.shutdown()

        #expect(!f.exists(unnamed), "a blob no entry names is removed")
        #expect(!FileManager.default.fileExists(atPath: stalePartial.path))
        #expect(!FileManager.default.fileExists(atPath: entryTemp.path))
        #expect(FileManager.default.fileExists(atPath: f.store.objectPath(committed)))
        #expect(f.read("model")?.current?.sha256 == committed)
        #expect(f.exists(served), "the copy the refresh retired stays as the rollback copy")
        #expect(f.read("model")?.previous?.sha256 == served.sha256)
      }
    }
  }

  /// Shutdown waits for a sweep still running: a start that sweeps alongside, shut down at
  /// once, leaves the cache as tidy as one that swept before returning. The sweep's end is
  /// announced with the cache's size, which the start's snapshot could not carry.
  @Test func shutdownRightAfterTheStartWaitsForTheSweep() async throws {
    try await withTemporaryDirectory { directory in
      let f = try CacheBudgetTests.Fixture(directory)
      let served = try f.blob(1)
      var unnamed: [Generation] = []
      for seed in 2...21 { unnamed.append(try f.blob(UInt8(seed))) }
      try f.entry("model", current: served, previous: nil)
      let asset = AssetDefinition(id: "model", remote: URL(string: "scripted://model"))
      let engine = try makeTestEngine([asset], cache: f.cache)
      let events = await engine.events()
      await engine.start(only: nil, sweep: .alongside)
      await engine.shutdown()
      var sizes: [Int64] = []
      for await event in events {  // the stream ended at shutdown
        if case .engineChanged(let info) = event, let usage = info.cache {
          sizes.append(usage.bytes)
        }
      }
      #expect(sizes == [f.store.measure()])
      #expect(unnamed.allSatisfy { !f.exists($0) })
      #expect(f.exists(served))
    }
  }
}
