import FleetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// Fleet screens at the dashboard's three sizes, compared with recorded files.
@Suite struct FleetSnapshotRenderTests {
  private func check(
    _ state: FleetState, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for (width, height) in SnapshotTests.sizes {
      let buffer = FleetRenderer.render(state, width: width, height: height, now: FleetFixtures.now)
      SnapshotAssertion.check(
        buffer, named: "\(name)-\(width)x\(height)", sourceLocation: sourceLocation)
    }
  }

  @Test func fleetTable() {
    check(FleetFixtures.loaded(), "fleet")
  }

  @Test func fleetWithoutColorInASCII() {
    check(
      FleetFixtures.loaded(options: Fixtures.options(color: false, unicode: false)),
      "fleet-mono-ascii")
  }

  @Test func fleetDetailOfTheStuckInstance() {
    var state = FleetFixtures.loaded()
    FleetFixtures.press([.down, .down, .down, .down, .enter], &state)
    check(state, "fleet-detail")
  }

  @Test func fleetFilterAndHelp() {
    var state = FleetFixtures.loaded()
    FleetFixtures.press([.character("/"), .character("1"), .character("0")], &state)
    check(state, "fleet-filter")
    FleetFixtures.press([.enter, .character("?")], &state)
    check(state, "fleet-help")
  }

  @Test func fleetWaitingAndFailing() {
    var state = FleetState(options: Fixtures.options(), source: "http://mon:9090", interval: 5)
    check(state, "fleet-waiting")
    _ = FleetReducer.reduce(
      &state, .queryFailed("Could not reach Prometheus at http://mon:9090: connection refused."),
      now: FleetFixtures.now)
    check(state, "fleet-unreachable")
  }

  @Test func stuckAndDownRowsAreFlaggedInTheGutterAndTheHeaderCountsThem() {
    let buffer = FleetRenderer.render(
      FleetFixtures.loaded(), width: 120, height: 40, now: FleetFixtures.now)
    let lines = ScreenText.characters(buffer)
    #expect(lines[0].contains("flags 2/4"))
    #expect(lines[0].contains("motd 3/4"))
    #expect(lines[0].contains("1 stuck"))
    #expect(lines[0].contains("1 down"))
    let stuck = lines.first { $0.contains("10.0.0.3:9464  flags") }
    #expect(stuck?.hasPrefix("!") == true)
    #expect(stuck?.contains("STUCK") == true)
    #expect(lines.filter { $0.hasPrefix("!") }.count == 3)
  }
}
