import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// Typing, keeping and clearing the filter.
@Suite struct ReducerFilterTests {
  @Test func slashStartsEditingAndPrintableKeysAppend() {
    var state = Fixtures.loadedState()
    Fixtures.press("/", &state)
    #expect(state.filter.isEditing)
    Fixtures.press("Mod", &state)
    #expect(state.filter.text == "Mod")
    #expect(state.rows(at: Fixtures.now).map(\.id) == ["model"])  // case-insensitive
  }

  @Test func filterMatchesTheStateWord() {
    var state = Fixtures.loadedState()
    Fixtures.press("/stale", &state)
    #expect(state.rows(at: Fixtures.now).map(\.id) == ["pricing"])
  }

  @Test func backspaceDeletes() {
    var state = Fixtures.loadedState()
    Fixtures.press("/mx", &state)
    Fixtures.press([.backspace], &state)
    #expect(state.filter.text == "m")
    Fixtures.press([.backspace, .backspace], &state)
    #expect(state.filter.text == "")
  }

  @Test func enterKeepsTheFilterAndKeysGoBackToTheTable() {
    var state = Fixtures.loadedState()
    Fixtures.press("/e", &state)
    Fixtures.press([.enter], &state)
    #expect(!state.filter.isEditing)
    #expect(state.filter.text == "e")
    #expect(Fixtures.press("R", &state) == [.command(.refreshAll)])
  }

  @Test func escClearsWhileEditing() {
    var state = Fixtures.loadedState()
    Fixtures.press("/mod", &state)
    Fixtures.press([.escape], &state)
    #expect(state.filter == FilterState())
    #expect(state.rows(at: Fixtures.now).count == Fixtures.everyState.count)
  }

  @Test func escClearsAKeptFilter() {
    var state = Fixtures.loadedState()
    Fixtures.press("/mod", &state)
    Fixtures.press([.enter, .escape], &state)
    #expect(state.filter.text.isEmpty)
  }

  @Test func filteringOutTheSelectionSelectsTheNearestRow() {
    var state = Fixtures.loadedState()
    Fixtures.press("/m", &state)  // feature-flags is filtered out
    let rows = state.rows(at: Fixtures.now)
    #expect(rows.map(\.id).contains("model"))
    #expect(state.selectedID == rows.first?.id)
  }

  @Test func controlCharactersAreNotTyped() {
    var state = Fixtures.loadedState()
    Fixtures.press("/", &state)
    Fixtures.press([.character("\u{1B}"), .character("\u{07}")], &state)
    #expect(state.filter.text.isEmpty)
  }

  @Test func arrowsStillMoveWhileTyping() {
    var state = Fixtures.loadedState()
    Fixtures.press("/", &state)
    Fixtures.press([.down], &state)
    #expect(state.selectedID == "model")
    #expect(state.filter.isEditing)
  }

  @Test func combiningMarksCountTowardTheLimit() {
    var state = Fixtures.loadedState()
    Fixtures.press("/e", &state)
    Fixtures.press(Array(repeating: Key.character("\u{301}"), count: 300), &state)
    #expect(state.filter.text.unicodeScalars.count == FilterKeys.maximumLength)
    #expect(state.filter.text.first?.unicodeScalars.first == "e")
    Fixtures.press("x", &state)  // full: nothing more is typed
    #expect(state.filter.text.unicodeScalars.count == FilterKeys.maximumLength)
  }
}
