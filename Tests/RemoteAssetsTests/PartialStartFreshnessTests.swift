import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// `assetwatch refresh ID` starts an engine that reads only that asset: its freshness journal
/// keeps what the other assets' last checks learned (it was written with the one asset's note
/// alone, and the others then looked as old as their entry files).
@Suite struct PartialStartFreshnessTests {
  @Test func anEngineOfOneAssetKeepsTheOthersNotes() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        let ids = ["a", "b", "c"]
        for id in ids {
          await origin.setResource(
            "/\(id).json", body: Data(#"{"id": "\#(id)"}"#.utf8), contentType: "application/json",
            lastModified: Date(timeIntervalSince1970: 1_700_000_000))
        }
        let assets = ids.map {
          AssetDefinition(
            id: $0, remote: URL(string: "\(origin.baseURL)/\($0).json"), format: .json,
            refresh: .every(3600))
        }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        // Every asset fetched, then checked again ten seconds on: three notes in the journal.
        let all = ManualClock(now: start)
        try await withEngine(assets, cache: dir.cache, clock: all) { engine in
          for id in ids { #expect(await engine.refresh(id).isUpdated) }
          all.advance(by: 10)
          for id in ids { #expect(await engine.refresh(id) == .notModified) }
        }
        let store = try CacheStore(root: dir.cache)
        for id in ids {
          #expect(FreshnessJournal.read(store)[id]?.checkedAt == start + 10, "\(id)")
        }

        // An engine of `a` alone checks it again later.
        let one = ManualClock(now: start + 20)
        let engine = try makeTestEngine(assets, cache: dir.cache, clock: one)
        await engine.start(only: ["a"])
        #expect(await engine.refresh("a") == .notModified)
        await engine.shutdown()

        let notes = FreshnessJournal.read(store)
        #expect(notes["a"]?.checkedAt == start + 20)
        #expect(notes["b"]?.checkedAt == start + 10, "b's note is kept")
        #expect(notes["c"]?.checkedAt == start + 10, "c's note is kept")
        // And a full engine started now shows every asset as last checked.
        try await withEngine(assets, cache: dir.cache, clock: ManualClock(now: start + 30)) {
          engine in
          #expect(await engine.status("a")?.checkedAt == start + 20)
          #expect(await engine.status("b")?.checkedAt == start + 10)
        }
      }
    }
  }
}
