import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// While the engine reads its cache at start, the dashboard draws at once, says how many assets
/// are still loading, and fills in the rows as they arrive, without highlighting them as changes.
@Suite struct EngineLoadingTests {
  private func loadingInfo(_ count: Int?) -> EngineInfo {
    var info = Fixtures.info
    info.assetsLoading = count
    return info
  }

  private func screen(_ state: DashboardState) -> String {
    ScreenText.characters(
      DashboardRenderer.render(state, width: 100, height: 20, now: Fixtures.now)
    )
    .joined(separator: "\n")
  }

  @Test func theFirstFrameSaysHowManyAssetsAreLoading() {
    var state = DashboardState(options: Fixtures.options())
    Fixtures.send(
      .snapshot(EngineSnapshot(info: loadingInfo(1000), assets: [], at: Fixtures.now)), &state)
    let text = screen(state)
    #expect(text.contains("loading 1000 assets…"))
    #expect(!text.contains("no assets configured"))
  }

  @Test func rowsFillInWithoutHighlightsAndTheLoadEndsQuietly() {
    var state = DashboardState(options: Fixtures.options())
    Fixtures.send(
      .snapshot(EngineSnapshot(info: loadingInfo(3), assets: [], at: Fixtures.now)), &state)
    Fixtures.send(.assetChanged(Fixtures.flags), &state)
    Fixtures.send(.assetChanged(Fixtures.model), &state)
    Fixtures.send(.engineChanged(loadingInfo(1)), &state)
    #expect(state.rows(at: Fixtures.now).map(\.id) == ["feature-flags", "model"])
    #expect(screen(state).contains("loading 1 asset…"))
    Fixtures.send(.assetChanged(Fixtures.banner), &state)
    // The whole, once loaded (the stored manifest may have changed a row meanwhile).
    let retargeted = Fixtures.model.with { $0.targetVersion = "new" }
    let whole = [Fixtures.flags, retargeted, Fixtures.banner]
    Fixtures.send(
      .snapshot(EngineSnapshot(info: loadingInfo(nil), assets: whole, at: Fixtures.now)), &state)
    #expect(state.changedAt.isEmpty)
    #expect(state.rows(at: Fixtures.now).map(\.id) == ["feature-flags", "model", "banner"])
    #expect(!screen(state).contains("loading"))
    // After the load, a change is a change again.
    Fixtures.send(.assetChanged(Fixtures.flags.with { $0.version = "v2" }), &state)
    #expect(state.isRecentlyChanged("feature-flags", at: Fixtures.now))
  }
}
