import AssetModel
import Foundation
import Testing

@testable import Dashboard

/// An attached dashboard losing and regaining its engine: the header says so, the table stays.
@Suite struct ConnectionStateTests {
  static func header(_ state: DashboardState) -> String {
    let buffer = DashboardRenderer.render(state, width: 120, height: 30, now: Fixtures.now)
    return ScreenText.characters(buffer).first ?? ""
  }

  @Test func aLostConnectionShowsDisconnectedAndKeepsTheTable() {
    var state = Fixtures.loadedState()
    let assets = state.assets
    _ = DashboardReducer.reduce(&state, .connection(.connected), now: Fixtures.now)
    #expect(!Self.header(state).contains("disconnected"))
    _ = DashboardReducer.reduce(
      &state, .connection(.disconnected(since: Fixtures.ago(5))), now: Fixtures.now)
    #expect(state.health.connection == .disconnected(since: Fixtures.ago(5)))
    #expect(Self.header(state).contains("disconnected 5s ago"))
    #expect(state.assets == assets, "the last known table stays")
    _ = DashboardReducer.reduce(&state, .connection(.connected), now: Fixtures.now)
    #expect(!Self.header(state).contains("disconnected"))
  }

  @Test func disconnectedSurvivesANarrowHeader() {
    var state = Fixtures.loadedState()
    _ = DashboardReducer.reduce(
      &state, .connection(.disconnected(since: Fixtures.now)), now: Fixtures.now)
    let buffer = DashboardRenderer.render(state, width: 60, height: 20, now: Fixtures.now)
    #expect((ScreenText.characters(buffer).first ?? "").contains("disconnected"))
  }

  @Test func anInProcessDashboardNeverSaysDisconnected() {
    let state = Fixtures.loadedState()
    #expect(state.health.connection == .inProcess)
    #expect(!Self.header(state).contains("disconnected"))
  }
}
