import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// Moving the selection, and keeping it on the same asset whatever the order.
@Suite struct ReducerNavigationTests {
  private func many(_ count: Int) -> [AssetStatus] {
    (0..<count).map {
      AssetStatus(id: String(format: "asset-%02d", $0), source: .cached, checkedAt: Fixtures.ago(1))
    }
  }

  @Test func firstSnapshotSelectsFirstRow() {
    let state = Fixtures.loadedState()
    #expect(state.selectedID == "feature-flags")
  }

  @Test func arrowsAndVimKeysMove() {
    var state = Fixtures.loadedState()
    Fixtures.press([.down, .down], &state)
    #expect(state.selectedID == "banner")
    Fixtures.press([.up], &state)
    #expect(state.selectedID == "model")
    Fixtures.press("jj", &state)
    #expect(state.selectedID == "filter-script")
    Fixtures.press("k", &state)
    #expect(state.selectedID == "banner")
  }

  @Test func movementStopsAtTheEnds() {
    var state = Fixtures.loadedState()
    Fixtures.press([.up], &state)
    #expect(state.selectedID == "feature-flags")
    Fixtures.press("G", &state)
    Fixtures.press([.down], &state)
    #expect(state.selectedID == "quiet-hours")
  }

  @Test func homeEndAndGJump() {
    var state = Fixtures.loadedState()
    Fixtures.press([.end], &state)
    #expect(state.selectedID == "quiet-hours")
    Fixtures.press([.home], &state)
    #expect(state.selectedID == "feature-flags")
    Fixtures.press("G", &state)
    #expect(state.selectedID == "quiet-hours")
    Fixtures.press("g", &state)
    #expect(state.selectedID == "feature-flags")
  }

  @Test func pageKeysMoveByTheVisibleRows() {
    var state = Fixtures.loadedState(many(40), withLog: false)
    Fixtures.press([.resize(width: 80, height: 24)], &state)
    let page = ScreenLayout(state: state, width: 80, height: 24, now: Fixtures.now)!.tableRows
    Fixtures.press([.pageDown], &state)
    #expect(state.selectedRowHint == page)
    #expect(state.scrollOffset > 0)  // the selection stays in view
    Fixtures.press([.pageUp], &state)
    #expect(state.selectedRowHint == 0)
    #expect(state.scrollOffset == 0)
  }

  @Test func pageKeysMoveByTheVisibleRowsFromTheFirstFrame() {
    // Curses reports no resize at start: the size the state was created with makes the page.
    let size = TerminalSize(width: 80, height: 24)
    var state = Fixtures.loadedState(many(40), withLog: false, terminalSize: size)
    let page = ScreenLayout(state: state, width: 80, height: 24, now: Fixtures.now)!.tableRows
    #expect(page != SelectionKeeper.defaultPage, "the test must tell the two pages apart")
    Fixtures.press([.pageDown], &state)
    #expect(state.selectedRowHint == page)
    #expect(state.scrollOffset > 0)  // the selection stays in view
    Fixtures.press([.resize(width: 80, height: 14), .pageUp], &state)
    let smaller = ScreenLayout(state: state, width: 80, height: 14, now: Fixtures.now)!.tableRows
    #expect(state.selectedRowHint == page - smaller, "a later resize changes the page")
  }

  @Test func pageKeysUseADefaultPageWithoutATerminalSize() {
    var state = Fixtures.loadedState(many(40), withLog: false)
    Fixtures.press([.pageDown], &state)
    #expect(state.selectedRowHint == SelectionKeeper.defaultPage)
  }

  @Test func selectionFollowsItsAssetWhenSortingMovesIt() {
    var state = Fixtures.loadedState()
    Fixtures.press([.down, .down], &state)  // banner, third in engine order
    Fixtures.press("ss", &state)  // sort by state: missing, failed, ...
    #expect(state.selectedID == "banner")
    let rows = state.rows(at: Fixtures.now)
    #expect(rows.first?.id == "ml-vocab")
    #expect(state.selectedIndex(in: rows) == 1)
  }

  @Test func selectionFollowsItsAssetAcrossASnapshotWithANewOrder() {
    var state = Fixtures.loadedState()
    Fixtures.press([.down], &state)  // model
    let reordered = Array(Fixtures.everyState.reversed())
    _ = DashboardReducer.reduce(
      &state, .engine(.snapshot(Fixtures.snapshot(reordered))), now: Fixtures.now)
    #expect(state.selectedID == "model")
  }

  @Test func vanishedSelectionMovesToTheNearestRow() {
    var state = Fixtures.loadedState()
    Fixtures.press([.down, .down], &state)  // banner, row 2
    let without = Fixtures.everyState.filter { $0.id != "banner" }
    _ = DashboardReducer.reduce(
      &state, .engine(.snapshot(Fixtures.snapshot(without))), now: Fixtures.now)
    #expect(state.selectedID == "filter-script")  // now on row 2
  }

  @Test func lastRowVanishingSelectsTheNewLastRow() {
    var state = Fixtures.loadedState()
    Fixtures.press("G", &state)
    let without = Fixtures.everyState.dropLast()
    _ = DashboardReducer.reduce(
      &state, .engine(.snapshot(Fixtures.snapshot(Array(without)))), now: Fixtures.now)
    #expect(state.selectedID == "theme")
  }

  @Test func sortCyclesAndReverses() {
    var state = Fixtures.loadedState()
    #expect(state.sort.column == .config)
    Fixtures.press("s", &state)
    #expect(state.sort.column == .id)
    #expect(state.rows(at: Fixtures.now).first?.id == "banner")
    Fixtures.press("S", &state)
    #expect(state.sort.reversed)
    #expect(state.rows(at: Fixtures.now).first?.id == "theme")
    for _ in 0..<(SortColumn.allCases.count - 1) { Fixtures.press("s", &state) }
    #expect(state.sort.column == .config)
  }
}
