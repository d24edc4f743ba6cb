import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// A progressive start: a subscriber from before the load sees no asset, then every asset as it
/// is read (a batch at a time, in config order), then the whole once loaded.
@Suite struct ProgressiveStartTests {
  private let definitions = (0..<25).map {
    AssetDefinition(id: "p\($0)", remote: URL(string: "scripted://p\($0)"), format: .json)
  }

  /// Fills `cache` with a committed copy of every asset.
  private func fill(_ cache: URL) async throws {
    let fetcher = ScriptedFetcher()
    fetcher.set("[1]", etag: "\"1\"")
    try await withEngine(definitions, cache: cache, fetchers: [fetcher]) { engine in
      for definition in definitions { _ = await engine.refresh(definition.id) }
    }
  }

  @Test func aSubscriberBeforeTheLoadSeesEveryAssetArriveThenTheWhole() async throws {
    try await withTemporaryDirectory { dir in
      let cache = dir.url.appendingPathComponent("c")
      try await fill(cache)
      let engine = try makeTestEngine(definitions, cache: cache, fetchers: [])
      let events = await engine.events()
      #expect(await engine.statuses().isEmpty)  // nothing read yet
      await engine.startProgressively(batchSize: 10)
      await engine.shutdown()
      var received: [EngineEvent] = []
      for await event in events { received.append(event) }

      guard case .snapshot(let first) = received.first else {
        Issue.record("no snapshot first")
        return
      }
      #expect(first.assets.isEmpty)
      #expect(first.info.assetsLoading == 25)
      let arrived = received.compactMap { event -> String? in
        if case .assetChanged(let status) = event { return status.id }
        return nil
      }
      #expect(arrived == definitions.map(\.id))
      let countdown = received.compactMap { event -> Int?? in
        if case .engineChanged(let info) = event { return info.assetsLoading }
        return nil
      }
      #expect(countdown == [15, 5, nil])
      guard case .snapshot(let whole) = received.last else {
        Issue.record("no snapshot last")
        return
      }
      #expect(whole.info.assetsLoading == nil)
      #expect(whole.assets.map(\.id) == definitions.map(\.id))
      #expect(whole.assets.allSatisfy { $0.source == .cached })
    }
  }

  @Test func aPlainStartAlsoGivesAnEarlySubscriberTheWhole() async throws {
    try await withTemporaryDirectory { dir in
      let cache = dir.url.appendingPathComponent("c")
      try await fill(cache)
      let engine = try makeTestEngine(definitions, cache: cache, fetchers: [])
      let events = await engine.events()
      await engine.start()
      await engine.shutdown()
      var snapshots: [EngineSnapshot] = []
      for await event in events {
        if case .snapshot(let snapshot) = event { snapshots.append(snapshot) }
      }
      #expect(snapshots.map(\.assets.count) == [0, 25])
      #expect(snapshots.last?.info.assetsLoading == nil)
    }
  }
}
