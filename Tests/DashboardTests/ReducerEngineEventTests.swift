import AssetModel
import Foundation
import Testing

@testable import Dashboard

/// How each engine event changes the state.
@Suite struct ReducerEngineEventTests {
  @Test func snapshotReplacesEverythingWithoutHighlightingTheFirstTime() {
    var state = DashboardState(options: Fixtures.options())
    Fixtures.send(.snapshot(Fixtures.snapshot()), &state)
    #expect(state.assets == Fixtures.everyState)
    #expect(state.info == Fixtures.info)
    #expect(state.changedAt.isEmpty)
  }

  @Test func laterSnapshotHighlightsOnlyChangedRowsAndDropsGoneOnes() {
    var state = Fixtures.loadedState([Fixtures.flags, Fixtures.model])
    let newer = Fixtures.flags.with { $0.etag = "\"v43\"" }
    Fixtures.send(.snapshot(Fixtures.snapshot([newer, Fixtures.banner])), &state)
    #expect(state.assets.map(\.id) == ["feature-flags", "banner"])
    #expect(state.isRecentlyChanged("feature-flags", at: Fixtures.now))
    #expect(state.isRecentlyChanged("banner", at: Fixtures.now))  // new
    #expect(!state.isRecentlyChanged("model", at: Fixtures.now))
  }

  @Test func assetChangedUpdatesInPlaceOrAppends() {
    var state = Fixtures.loadedState([Fixtures.flags, Fixtures.model])
    Fixtures.send(.assetChanged(Fixtures.flags.with { $0.version = "new" }), &state)
    #expect(state.assets.map(\.id) == ["feature-flags", "model"])
    #expect(state.asset("feature-flags")?.version == "new")
    Fixtures.send(.assetChanged(Fixtures.banner), &state)
    #expect(state.assets.map(\.id) == ["feature-flags", "model", "banner"])
  }

  @Test func highlightLastsAboutThreeSeconds() {
    var state = Fixtures.loadedState()
    Fixtures.send(.assetChanged(Fixtures.flags.with { $0.version = "new" }), &state)
    #expect(state.isRecentlyChanged("feature-flags", at: Fixtures.later(2.9)))
    #expect(!state.isRecentlyChanged("feature-flags", at: Fixtures.later(3)))
  }

  @Test func identicalAssetChangedIsNotHighlighted() {
    var state = Fixtures.loadedState()
    Fixtures.send(.assetChanged(Fixtures.flags), &state)
    #expect(!state.isRecentlyChanged("feature-flags", at: Fixtures.now))
  }

  @Test func progressUpdatesOnlyTransfersInFlight() {
    var state = Fixtures.loadedState()
    let progress = TransferProgress(receivedBytes: 1, expectedBytes: 2, bytesPerSecond: 1)
    Fixtures.send(.progress(id: "model", progress), &state)
    #expect(state.asset("model")?.activity == .downloading(progress))
    Fixtures.send(.progress(id: "catalog", progress), &state)  // checking -> downloading
    #expect(state.asset("catalog")?.activity == .downloading(progress))
    Fixtures.send(.progress(id: "feature-flags", progress), &state)  // idle: a late event is dropped
    #expect(state.asset("feature-flags")?.activity == .idle)
    Fixtures.send(.progress(id: "theme", progress), &state)  // validating
    #expect(state.asset("theme")?.activity == .validating)
    Fixtures.send(.progress(id: "nope", progress), &state)
    #expect(state.asset("nope") == nil)
  }

  @Test func engineChangedReplacesInfo() {
    var state = Fixtures.loadedState()
    let info = EngineInfo(appVersion: "2.4.0", manifestVersion: "m-3", autoRefreshPaused: true)
    Fixtures.send(.engineChanged(info), &state)
    #expect(state.info == info)
  }

  @Test func logKeepsTheLast200Entries() {
    var state = Fixtures.loadedState(withLog: false)
    for i in 0..<250 {
      Fixtures.send(
        .log(EngineLogEntry(at: Fixtures.now, assetID: nil, level: .info, message: "line \(i)")),
        &state)
    }
    #expect(state.log.entries.count == 200)
    #expect(state.log.entries.first?.message == "line 50")
    #expect(state.log.newestFirst.first?.message == "line 249")
  }

  @Test func streamHealthCountsRecentEvents() {
    var state = DashboardState(options: Fixtures.options())
    for i in 0..<10 {
      Fixtures.send(
        .log(EngineLogEntry(at: Fixtures.now, assetID: nil, level: .info, message: "")), &state,
        at: Fixtures.ago(Double(9 - i)))
    }
    // Events at -9...-0 s; the 5 s window ending now holds those at -4...0.
    #expect(state.health.eventsPerSecond(at: Fixtures.now) == 1.0)
    #expect(state.health.lastEventAt == Fixtures.now)
    #expect(state.health.eventsPerSecond(at: Fixtures.later(10)) == 0)
  }

  @Test func streamHealthUnderAStormKeepsItsRateAndABoundedList() {
    var health = StreamHealth()
    for i in 0..<20_000 {  // 1,000 a second for 20 s
      health.record(at: Fixtures.now.addingTimeInterval(Double(i) / 1000))
      #expect(health.arrivals.count <= 2 * 5 * 1000 + 1)
    }
    #expect(health.eventsPerSecond(at: Fixtures.later(19.999)) == 1000)
  }
}
