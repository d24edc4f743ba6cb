import AssetModel
import Foundation
import TerminalCore

/// Keys while a confirm dialog is open: only `y` confirms, anything else answers No.
enum ConfirmKeys {
  /// Answers `dialog` with `key`, unless the key falls in the guard window after it opened.
  static func press(
    _ key: Key, _ dialog: ConfirmDialog, _ state: inout DashboardState, now: Date
  ) -> [DashboardEffect] {
    // Key repeat of the key that opened the dialog must not answer it.
    if dialog.isGuarding(at: now) { return [] }
    state.overlay = nil
    EngineEventReducer.flushPending(&state, now: now)
    guard key == .character("y") else { return [] }
    return [.command(dialog.action.command(for: dialog.targetID))]
  }
}
