import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// The confirm dialog of the destructive keys: default No, only `y`, a guard window, a frozen table.
@Suite struct ReducerDialogTests {
  // Just past the guard window (a hair more, as dates are floating point).
  static let afterGuard = Fixtures.later(ConfirmDialog.guardInterval + 0.001)

  private func openDrop(on id: String = "model") -> DashboardState {
    var state = Fixtures.loadedState()
    while state.selectedID != id { Fixtures.press([.down], &state) }
    Fixtures.press("d", &state)
    return state
  }

  private func dialog(_ state: DashboardState) -> ConfirmDialog? {
    if case .confirm(let dialog) = state.overlay { return dialog }
    return nil
  }

  @Test(arguments: [
    ("b", ConfirmDialog.Action.resetToBundled, AssetCommand.resetToBundled(id: "feature-flags")),
    ("d", .dropCache, .dropCache(id: "feature-flags")),
    ("u", .rollback, .rollback(id: "feature-flags")),
    (
      "x", .reject,
      .reject(id: "feature-flags", reason: ConfirmDialog.dashboardRejectReason)
    ),
  ])
  func destructiveKeysOpenADialogAndYConfirms(
    key: String, action: ConfirmDialog.Action, command: AssetCommand
  ) {
    var state = Fixtures.loadedState()
    #expect(Fixtures.press(key, &state).isEmpty)
    #expect(dialog(state)?.action == action)
    #expect(dialog(state)?.targetID == "feature-flags")
    #expect(dialog(state)?.openedAt == Fixtures.now)
    #expect(Fixtures.press("y", &state, at: Self.afterGuard) == [.command(command)])
    #expect(state.overlay == nil)
  }

  @Test func impactTextSaysWhatWillHappen() {
    let state = openDrop()
    #expect(
      dialog(state)?.impact.hasPrefix("Drop cached copy of model (50 MiB)? It will serve") == true)
    var bundled = Fixtures.loadedState([Fixtures.banner])
    Fixtures.press("d", &bundled)
    #expect(dialog(bundled)?.impact.contains("nothing changes") == true)
  }

  @Test func rejectSaysWhatItDoesAndIsRefusedWithNothingToGoBackTo() {
    var state = Fixtures.loadedState()
    Fixtures.press("x", &state)
    let impact = dialog(state)?.impact ?? ""
    #expect(impact.contains("goes back to the previous generation"), "\(impact)")
    #expect(impact.contains("not fetched again until the target changes"), "\(impact)")
    // A bundled-only asset serves nothing downloaded: a notice, no dialog.
    var bundled = Fixtures.loadedState([Fixtures.banner])
    #expect(Fixtures.press("x", &bundled).isEmpty)
    #expect(dialog(bundled) == nil)
    #expect(bundled.notice?.text.contains("no downloaded version to reject") == true)
  }

  @Test func keysInTheGuardWindowAreIgnored() {
    var state = openDrop()
    let early = Fixtures.later(ConfirmDialog.guardInterval - 0.01)
    #expect(Fixtures.press("y", &state, at: early).isEmpty)
    #expect(dialog(state) != nil)  // still open: key repeat cannot answer it
    #expect(Fixtures.press("y", &state, at: Self.afterGuard) == [.command(.dropCache(id: "model"))])
  }

  @Test(arguments: [Key.enter, .character("d"), .character("n"), .escape, .character("Y"), .down])
  func anyOtherKeyAnswersNo(key: Key) {
    var state = openDrop()
    #expect(Fixtures.press([key], &state, at: Self.afterGuard).isEmpty)
    #expect(state.overlay == nil)
    #expect(state.selectedID == "model")  // the key was not also applied to the table
  }

  @Test func resizeDoesNotAnswerTheDialog() {
    var state = openDrop()
    Fixtures.press([.resize(width: 90, height: 30)], &state, at: Self.afterGuard)
    #expect(dialog(state) != nil)
  }

  @Test func readonlyRefusesDestructiveKeysAndSaysSo() {
    var state = Fixtures.loadedState(options: Fixtures.options(readonly: true))
    for key in ["b", "d", "u"] {
      #expect(Fixtures.press(key, &state).isEmpty)
      #expect(state.overlay == nil)
      #expect(state.notice?.text.hasPrefix("refused: read-only") == true, "\(key)")
    }
  }

  @Test func rollbackWithoutAPreviousGenerationOnlyPostsANotice() {
    var state = Fixtures.loadedState()
    Fixtures.press([.down], &state)  // model: canRollback is false
    Fixtures.press("u", &state)
    #expect(state.overlay == nil)
    #expect(state.notice?.text.contains("model") == true)
    _ = DashboardReducer.reduce(&state, .tick, now: Fixtures.later(Notice.lifetime))
    #expect(state.notice == nil)
  }

  @Test func engineEventsWaitUntilTheDialogCloses() {
    var state = openDrop()
    let changed = Fixtures.model.with { $0.version = "9c0d2e11" }
    let entry = EngineLogEntry(at: Fixtures.now, assetID: "model", level: .info, message: "updated")
    _ = DashboardReducer.reduce(&state, .engine(.assetChanged(changed)), now: Fixtures.now)
    _ = DashboardReducer.reduce(&state, .engine(.log(entry)), now: Fixtures.now)
    #expect(state.asset("model")?.version == "a81b7e55")  // frozen
    #expect(state.pendingEvents.count == 2)
    #expect(state.health.lastEventAt == Fixtures.now)  // but the stream is still seen alive
    Fixtures.press("n", &state, at: Self.afterGuard)
    #expect(state.asset("model")?.version == "9c0d2e11")
    #expect(state.log.entries.last == entry)
    #expect(state.pendingEvents.isEmpty)
  }

  @Test func aQueuedSnapshotReplacesEarlierQueuedEvents() {
    var state = openDrop()
    _ = DashboardReducer.reduce(&state, .engine(.assetChanged(Fixtures.model)), now: Fixtures.now)
    _ = DashboardReducer.reduce(
      &state, .engine(.snapshot(Fixtures.snapshot([Fixtures.flags]))), now: Fixtures.now)
    #expect(state.pendingEvents.count == 1)
  }
}

@Suite struct ImpactTextTests {
  @Test func dropSaysWhetherABundledCopyRemains() {
    let withBundle = AssetStatus(id: "flags", source: .cached, size: 2048, hasBundledCopy: true)
    let without = AssetStatus(id: "model", source: .cached, size: 2048, hasBundledCopy: false)
    #expect(ImpactText.describe(.dropCache, withBundle).contains("It will serve the bundled copy."))
    #expect(ImpactText.describe(.dropCache, without).contains("nothing (it has no bundled copy)"))
  }
}
