import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// `S` in the engine's (config) order reverses it, and the column titles say so, as in every
/// other order (and as the fleet view does for its default order).
@Suite struct ReducerReverseSortTests {
  private let configIDs = Fixtures.everyState.map(\.id)

  private func titles(_ state: DashboardState) -> String {
    let buffer = DashboardRenderer.render(state, width: 120, height: 40, now: Fixtures.now)
    return ScreenText.characters(buffer).first { $0.contains("STATE") } ?? ""
  }

  @Test func reverseInTheConfigOrderReversesTheRowsAndMarksTheTitles() {
    var state = Fixtures.loadedState()
    #expect(state.rows(at: Fixtures.now).map(\.id) == configIDs)
    #expect(!titles(state).contains("▼") && !titles(state).contains("▲"))
    Fixtures.press("S", &state)
    #expect(state.sort == TableSort(column: .config, reversed: true))
    #expect(state.rows(at: Fixtures.now).map(\.id) == configIDs.reversed())
    #expect(titles(state).contains("ID▼"), "\(titles(state))")
    Fixtures.press("S", &state)
    #expect(state.rows(at: Fixtures.now).map(\.id) == configIDs)
    #expect(!titles(state).contains("▼"))
  }

  @Test func anAssetAddedToTheReversedConfigOrderComesFirst() {
    var state = Fixtures.loadedState()
    Fixtures.press("S", &state)
    let added = AssetStatus(id: "added-late", source: .none)
    Fixtures.send(.assetChanged(added), &state)
    #expect(state.rows(at: Fixtures.now).map(\.id) == ["added-late"] + configIDs.reversed())
  }
}
