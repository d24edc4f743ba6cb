import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// Screens at the three sizes the design names, compared with recorded files.
@Suite struct SnapshotTests {
  static let sizes = [(80, 24), (120, 40), (60, 20)]

  private func check(
    _ state: DashboardState, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for (width, height) in Self.sizes {
      let buffer = DashboardRenderer.render(state, width: width, height: height, now: Fixtures.now)
      SnapshotAssertion.check(
        buffer, named: "\(name)-\(width)x\(height)", sourceLocation: sourceLocation)
    }
  }

  @Test func tableWithEveryState() {
    check(Fixtures.loadedState(), "table")
  }

  @Test func tableWithoutColorInASCII() {
    check(
      Fixtures.loadedState(options: Fixtures.options(color: false, unicode: false)),
      "table-mono-ascii")
  }

  @Test func downloadInProgress() {
    var state = Fixtures.loadedState([Fixtures.flags, Fixtures.model, Fixtures.banner])
    // The model just changed: its row is highlighted and selected.
    _ = DashboardReducer.reduce(
      &state, .engine(.assetChanged(Fixtures.model)), now: Fixtures.ago(1))
    var moved = Fixtures.model
    moved.activity = .downloading(
      TransferProgress(
        receivedBytes: 40 * Fixtures.mib, expectedBytes: 50 * Fixtures.mib, bytesPerSecond: 5e6))
    _ = DashboardReducer.reduce(&state, .engine(.assetChanged(moved)), now: Fixtures.ago(1))
    Fixtures.press([.down], &state)
    check(state, "download")
  }

  @Test func detailPane() {
    var state = Fixtures.loadedState()
    Fixtures.press([.enter], &state)
    check(state, "detail")
  }

  @Test func helpOverlay() {
    var state = Fixtures.loadedState()
    Fixtures.press("?", &state)
    check(state, "help")
  }

  @Test func helpOverlayReadonly() {
    var state = Fixtures.loadedState(options: Fixtures.options(readonly: true))
    Fixtures.press("?", &state)
    check(state, "help-readonly")
  }

  @Test func confirmDialog() {
    var state = Fixtures.loadedState()
    Fixtures.press([.down], &state)
    Fixtures.press("d", &state)
    check(state, "confirm")
  }

  @Test func filterBeingTyped() {
    var state = Fixtures.loadedState()
    Fixtures.press("/fa", &state)
    check(state, "filter")
  }

  @Test func pausedAndSorted() {
    var info = Fixtures.info
    info.autoRefreshPaused = true
    info.pausedAt = Fixtures.now.addingTimeInterval(-75)
    var state = Fixtures.loadedState()
    _ = DashboardReducer.reduce(&state, .engine(.engineChanged(info)), now: Fixtures.now)
    Fixtures.press("ssS", &state)
    check(state, "paused-sorted")
  }

  @Test func terminalTooSmall() {
    let state = Fixtures.loadedState()
    for (width, height) in [(39, 24), (80, 9)] {
      let buffer = DashboardRenderer.render(state, width: width, height: height, now: Fixtures.now)
      SnapshotAssertion.check(buffer, named: "too-small-\(width)x\(height)")
    }
  }

  @Test func waitingForEngine() {
    let state = DashboardState(options: Fixtures.options())
    let buffer = DashboardRenderer.render(state, width: 80, height: 24, now: Fixtures.now)
    SnapshotAssertion.check(buffer, named: "waiting-80x24")
  }

  @Test func renderingIsDeterministic() {
    let state = Fixtures.loadedState()
    let a = DashboardRenderer.render(state, width: 80, height: 24, now: Fixtures.now)
    let b = DashboardRenderer.render(state, width: 80, height: 24, now: Fixtures.now)
    #expect(a == b)
    let later = DashboardRenderer.render(state, width: 80, height: 24, now: Fixtures.later(1))
    #expect(a != later)  // the clock moved
  }
}
