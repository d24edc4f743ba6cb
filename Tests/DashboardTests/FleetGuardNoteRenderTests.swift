import FleetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// The fleet view shows `publish guard`'s latest signed decision beside the shown asset's
/// rollout (`fleet --repo`), and nothing without one.
@Suite struct FleetGuardNoteRenderTests {
  private func header(_ note: FleetGuardNote?) -> String {
    var snapshot = FleetRolloutRenderTests.snapshot
    snapshot.rollouts[0].guardNote = note
    var state = FleetState(
      options: Fixtures.options(color: false), source: "http://127.0.0.1:9090", interval: 1,
      terminalSize: TerminalSize(width: 200, height: 24))
    _ = FleetReducer.reduce(&state, .snapshot(snapshot), now: Fixtures.ago(1))
    let buffer = FleetRenderer.render(state, width: 200, height: 24, now: FleetFixtures.now)
    return ScreenText.characters(buffer)[0]
  }

  @Test func theGuardsVerdictAndStepAreInTheHeader() {
    let halted = header(
      FleetGuardNote(verdict: "halt", step: 0, at: FleetFixtures.now, reason: "canary: 1 of 1"))
    #expect(halted.contains("guard HALT 0 %"), "\(halted)")
    let advancing = header(
      FleetGuardNote(verdict: "advance", step: 25, at: FleetFixtures.now, reason: "healthy"))
    #expect(advancing.contains("guard ADVANCE 25 %"), "\(advancing)")
    #expect(!header(nil).contains("guard"))
  }
}
