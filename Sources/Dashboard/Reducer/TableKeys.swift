import Foundation
import TerminalCore

/// The keys every table view shares: moving the selection, opening the filter line, sorting,
/// the detail pane and Esc. The views' reducers try these first and handle the rest themselves.
enum TableKeys {
  /// Applies `key` if it is one of the shared table keys; returns whether it was.
  static func press<State: SelectableTable>(_ key: Key, _ state: inout State, now: Date) -> Bool {
    switch key {
    case .up, .character("k"): SelectionKeeper.move(by: -1, &state, now: now)
    case .down, .character("j"): SelectionKeeper.move(by: 1, &state, now: now)
    case .pageUp:
      SelectionKeeper.move(by: -SelectionKeeper.pageSize(state, now: now), &state, now: now)
    case .pageDown:
      SelectionKeeper.move(by: SelectionKeeper.pageSize(state, now: now), &state, now: now)
    case .home, .character("g"): SelectionKeeper.moveToTop(&state, now: now)
    case .end, .character("G"): SelectionKeeper.moveToBottom(&state, now: now)
    case .enter: state.showsDetail.toggle()
    case .escape: closeTopmost(&state)
    case .character("/"): state.filter.isEditing = true
    case .character("s"): state.cycleSortColumn()
    case .character("S"): state.reverseSortOrder()
    default: return false
    }
    return true
  }

  /// Esc outside any overlay closes the detail pane, else clears a kept filter.
  private static func closeTopmost<State: SelectableTable>(_ state: inout State) {
    if state.showsDetail {
      state.showsDetail = false
    } else if !state.filter.text.isEmpty {
      state.filter = FilterState()
    }
  }
}
