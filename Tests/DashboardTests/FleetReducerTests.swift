import FleetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// The fleet view answers the dashboard's table keys the same way.
@Suite struct FleetReducerTests {
  @Test func firstRowIsSelectedOnceTheFleetArrives() {
    let state = FleetFixtures.loaded()
    #expect(state.selectedID == "10.0.0.1:9464 flags")
  }

  @Test func movingKeysAreTheDashboards() {
    var state = FleetFixtures.loaded()
    FleetFixtures.press([.down, .character("j")], &state)
    #expect(state.selectedID == "10.0.0.2:9464 flags")
    FleetFixtures.press([.character("G")], &state)
    #expect(state.selectedID == "10.0.0.4:9464 motd")
    FleetFixtures.press([.up, .character("k")], &state)
    #expect(state.selectedID == "10.0.0.3:9464 motd")
    FleetFixtures.press([.character("g")], &state)
    #expect(state.selectedID == "10.0.0.1:9464 flags")
    FleetFixtures.press([.pageDown], &state)
    #expect(state.selectedID == "10.0.0.4:9464 motd")
  }

  @Test func filterKeepsMatchingRowsAndEscClearsIt() {
    var state = FleetFixtures.loaded()
    FleetFixtures.press([.character("/")] + "stuck".map { .character($0) } + [.enter], &state)
    #expect(state.rows(at: FleetFixtures.now).map(\.id) == ["10.0.0.3:9464 flags"])
    #expect(state.selectedID == "10.0.0.3:9464 flags")
    #expect(!state.filter.isEditing)
    FleetFixtures.press([.escape], &state)
    #expect(state.filter.text.isEmpty)
    #expect(state.rows(at: FleetFixtures.now).count == 8)
  }

  @Test func typingIntoTheFilterDoesNotQuit() {
    var state = FleetFixtures.loaded()
    let effects = FleetFixtures.press([.character("/"), .character("q")], &state)
    #expect(effects.isEmpty)
    #expect(state.filter.text == "q")
  }

  @Test func sortCyclesColumnsAndReverses() {
    var state = FleetFixtures.loaded()
    FleetFixtures.press([.character("s"), .character("s")], &state)
    #expect(state.sort.column == .rollout)
    #expect(
      state.rows(at: FleetFixtures.now).prefix(3).map(\.id) == [
        "10.0.0.4:9464 flags", "10.0.0.4:9464 motd", "10.0.0.3:9464 flags",
      ])
    FleetFixtures.press([.character("S")], &state)
    #expect(state.rows(at: FleetFixtures.now).last?.id == "10.0.0.4:9464 motd")
    #expect(state.selectedID == "10.0.0.1:9464 flags")
  }

  @Test func enterTogglesDetailAndEscClosesIt() {
    var state = FleetFixtures.loaded()
    FleetFixtures.press([.enter], &state)
    #expect(state.showsDetail)
    FleetFixtures.press([.escape], &state)
    #expect(!state.showsDetail)
  }

  @Test func quitRefreshAndHelp() {
    var state = FleetFixtures.loaded()
    #expect(FleetFixtures.press([.character("r")], &state) == [.refresh])
    FleetFixtures.press([.character("?")], &state)
    #expect(state.showsHelp)
    #expect(FleetFixtures.press([.character("q")], &state).isEmpty)  // closes the help
    #expect(!state.showsHelp)
    #expect(FleetFixtures.press([.character("q")], &state) == [.quit])
    #expect(FleetFixtures.press([.interrupt], &state) == [.quit])
  }

  @Test func aFailedQueryKeepsTheLastFleetAndASuccessClearsTheError() {
    var state = FleetFixtures.loaded()
    _ = FleetReducer.reduce(&state, .queryFailed("Prometheus is gone."), now: FleetFixtures.now)
    #expect(state.lastError == "Prometheus is gone.")
    #expect(state.snapshot == FleetFixtures.snapshot)
    _ = FleetReducer.reduce(&state, .snapshot(FleetFixtures.snapshot), now: FleetFixtures.now)
    #expect(state.lastError == nil)
  }

  @Test func selectionFollowsItsRowWhenTheFleetChangesOrder() {
    var state = FleetFixtures.loaded()
    FleetFixtures.press([.character("G")], &state)
    var snapshot = FleetFixtures.snapshot
    snapshot.rows.reverse()
    _ = FleetReducer.reduce(&state, .snapshot(snapshot), now: FleetFixtures.now)
    #expect(state.selectedID == "10.0.0.4:9464 motd")
  }

  @Test func arrowsAskForAnotherAssetsRowsAndBracketsForAnotherPage() {
    var state = FleetFixtures.loaded()
    #expect(FleetFixtures.press([.right], &state) == [.refresh])
    #expect(state.request == FleetPageRequest(asset: "motd", page: 1))
    FleetFixtures.press([.right], &state)
    #expect(state.request.asset == "flags", "wraps around")
    #expect(FleetFixtures.press([.character("]")], &state).isEmpty, "no page yet")
    var paged = FleetFixtures.snapshot
    paged.page = FleetPage(asset: "flags", number: 1, size: 8, total: 20)
    _ = FleetReducer.reduce(&state, .snapshot(paged), now: FleetFixtures.now)
    #expect(FleetFixtures.press([.character("]")], &state) == [.refresh])
    #expect(state.request == FleetPageRequest(asset: "flags", page: 2))
    #expect(FleetFixtures.press([.character("[")], &state).isEmpty, "already on page 1")
    let header = ScreenText.characters(
      FleetRenderer.render(state, width: 120, height: 40, now: FleetFixtures.now))[0]
    #expect(header.contains("flags rows 1-8 of 20"), "\(header)")
  }
}
