import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// The keys that send commands, toggle panes and quit.
@Suite struct ReducerKeyTests {
  @Test func rRefreshesTheSelectedAsset() {
    var state = Fixtures.loadedState()
    Fixtures.press([.down], &state)
    #expect(Fixtures.press("r", &state) == [.command(.refresh(id: "model"))])
  }

  @Test func rWithNoRowsDoesNothing() {
    var state = DashboardState(options: Fixtures.options())
    #expect(Fixtures.press("r", &state).isEmpty)
  }

  @Test func capitalRRefreshesAll() {
    var state = Fixtures.loadedState()
    #expect(Fixtures.press("R", &state) == [.command(.refreshAll)])
  }

  @Test func pPausesOrResumesFromTheEnginesFlag() {
    var state = Fixtures.loadedState()
    #expect(Fixtures.press("p", &state) == [.command(.pauseAutoRefresh)])
    var info = Fixtures.info
    info.autoRefreshPaused = true
    _ = DashboardReducer.reduce(&state, .engine(.engineChanged(info)), now: Fixtures.now)
    #expect(Fixtures.press("p", &state) == [.command(.resumeAutoRefresh)])
  }

  @Test func qAndInterruptQuit() {
    var state = Fixtures.loadedState()
    #expect(Fixtures.press("q", &state) == [.quit])
    #expect(Fixtures.press([.interrupt], &state) == [.quit])
  }

  @Test func interruptQuitsEvenFromADialogOrTheFilter() {
    var state = Fixtures.loadedState()
    Fixtures.press("d", &state)
    #expect(Fixtures.press([.interrupt], &state) == [.quit])
    var filtering = Fixtures.loadedState()
    Fixtures.press("/", &filtering)
    #expect(Fixtures.press("q", &filtering).isEmpty)  // typed into the filter
    #expect(Fixtures.press([.interrupt], &filtering) == [.quit])
  }

  @Test func enterTogglesTheDetailPaneAndEscClosesIt() {
    var state = Fixtures.loadedState()
    Fixtures.press([.enter], &state)
    #expect(state.showsDetail)
    Fixtures.press([.enter], &state)
    #expect(!state.showsDetail)
    Fixtures.press([.enter], &state)
    Fixtures.press([.escape], &state)
    #expect(!state.showsDetail)
  }

  @Test func lTogglesTheEventPane() {
    var state = Fixtures.loadedState()
    #expect(state.showsEvents)
    Fixtures.press("l", &state)
    #expect(!state.showsEvents)
    Fixtures.press("l", &state)
    #expect(state.showsEvents)
  }

  @Test func questionMarkOpensHelpAndAnyKeyClosesIt() {
    var state = Fixtures.loadedState()
    Fixtures.press("?", &state)
    #expect(state.overlay == .help)
    #expect(Fixtures.press("r", &state).isEmpty)  // closes the help, sends nothing
    #expect(state.overlay == nil)
    Fixtures.press("?", &state)
    Fixtures.press([.escape], &state)
    #expect(state.overlay == nil)
  }

  @Test func resizeOnlyRecordsTheSize() {
    var state = Fixtures.loadedState()
    let before = state
    #expect(Fixtures.press([.resize(width: 100, height: 30)], &state).isEmpty)
    #expect(state.terminalSize == TerminalSize(width: 100, height: 30))
    state.terminalSize = nil
    #expect(state == before)
  }

  @Test func unknownKeysDoNothing() {
    var state = Fixtures.loadedState()
    let before = state
    #expect(Fixtures.press([.tab, .left, .right, .character("z")], &state).isEmpty)
    #expect(state == before)
  }

  @Test func tickExpiresHighlightsAndNotices() {
    var state = Fixtures.loadedState()
    _ = DashboardReducer.reduce(
      &state, .engine(.assetChanged(Fixtures.model.with { $0.size = 1 })), now: Fixtures.now)
    #expect(state.isRecentlyChanged("model", at: Fixtures.now))
    _ = DashboardReducer.reduce(&state, .tick, now: Fixtures.later(1))
    #expect(state.changedAt["model"] != nil)
    _ = DashboardReducer.reduce(
      &state, .tick, now: Fixtures.later(DashboardState.highlightDuration))
    #expect(state.changedAt["model"] == nil)
  }
}

extension AssetStatus {
  /// A copy with `change` applied.
  func with(_ change: (inout AssetStatus) -> Void) -> AssetStatus {
    var copy = self
    change(&copy)
    return copy
  }
}
