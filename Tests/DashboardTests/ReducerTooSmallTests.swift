import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// A terminal too small for the dashboard shows only a notice, so keys must not act unseen: only
/// quit and resize count, and an open confirm dialog is cancelled.
@Suite struct ReducerTooSmallTests {
  static let afterGuard = Fixtures.later(ConfirmDialog.guardInterval + 0.001)
  static let roomy = TerminalSize(width: 80, height: 24)
  static let tiny = TerminalSize(width: 30, height: 8)

  @Test func aDialogOpenWhenTheTerminalShrinksIsCancelledAndYSendsNothing() {
    var state = Fixtures.loadedState(terminalSize: Self.roomy)
    Fixtures.press("d", &state)
    guard case .confirm = state.overlay else {
      Issue.record("no dialog")
      return
    }
    Fixtures.press([.resize(width: Self.tiny.width, height: Self.tiny.height)], &state)
    #expect(state.overlay == nil)
    #expect(state.notice?.text.contains("cancelled") == true)
    #expect(Fixtures.press("y", &state, at: Self.afterGuard).isEmpty)
    // Back to a size that fits, `y` still answers nothing: the dialog is gone.
    Fixtures.press([.resize(width: Self.roomy.width, height: Self.roomy.height)], &state)
    #expect(Fixtures.press("y", &state, at: Self.afterGuard).isEmpty)
    #expect(state.overlay == nil)
  }

  @Test func eventsQueuedBehindTheCancelledDialogAreApplied() {
    var state = Fixtures.loadedState(terminalSize: Self.roomy)
    Fixtures.press("d", &state)
    let changed = Fixtures.flags.with { $0.version = "0badf00d" }
    Fixtures.send(.assetChanged(changed), &state)
    Fixtures.press([.resize(width: Self.tiny.width, height: Self.tiny.height)], &state)
    #expect(state.asset("feature-flags")?.version == "0badf00d")
    #expect(state.pendingEvents.isEmpty)
  }

  @Test func destructiveKeysOnATooSmallTerminalOpenNothing() {
    var state = Fixtures.loadedState(terminalSize: Self.tiny)
    for key in ["d", "b", "u", "x"] {
      #expect(Fixtures.press(key, &state).isEmpty)
      #expect(state.overlay == nil, "\(key)")
      #expect(Fixtures.press("y", &state, at: Self.afterGuard).isEmpty)
    }
  }

  @Test func onlyQuitAndResizeCountOnATooSmallTerminal() {
    var state = Fixtures.loadedState(terminalSize: Self.tiny)
    let before = state
    for key in ["r", "R", "p", "?", "/", "j", "l", "s"] {
      #expect(Fixtures.press(key, &state).isEmpty, "\(key)")
    }
    #expect(Fixtures.press([.down, .enter, .pageDown], &state).isEmpty)
    #expect(state == before)
    #expect(Fixtures.press("q", &state) == [.quit])
    #expect(Fixtures.press([.interrupt], &state) == [.quit])
    // Growing the terminal brings the keys back.
    Fixtures.press([.resize(width: Self.roomy.width, height: Self.roomy.height)], &state)
    Fixtures.press("d", &state)
    guard case .confirm = state.overlay else {
      Issue.record("no dialog after the terminal grew")
      return
    }
  }

  @Test func theRendererAndTheReducerShareOneSizeTest() {
    for (width, height) in [(39, 24), (40, 9), (40, 10), (80, 24)] {
      let state = Fixtures.loadedState(terminalSize: TerminalSize(width: width, height: height))
      let screen = DashboardRenderer.render(state, width: width, height: height, now: Fixtures.now)
      let text = ScreenText.characters(screen).joined(separator: "\n")
      let fits = ScreenLayout.fits(width: width, height: height)
      #expect(text.contains("terminal too small") == !fits, "\(width)x\(height)")
      #expect(fits == (width >= 40 && height >= 10))
    }
  }
}
