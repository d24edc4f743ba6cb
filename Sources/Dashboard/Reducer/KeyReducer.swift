import AssetModel
import Foundation
import TerminalCore

/// What each key does (the footer and help list them in `KeyHints`). Keys go to the open overlay
/// first, then to the filter line while it is being typed, then to the table.
enum KeyReducer {
  /// Applies `key` to `state` at `now` and returns the effects it asks for.
  static func press(_ key: Key, on state: inout DashboardState, now: Date) -> [DashboardEffect] {
    if case .resize(let width, let height) = key {
      state.terminalSize = TerminalSize(width: width, height: height)
      if !ScreenLayout.fits(state.terminalSize) { cancelHiddenDialog(&state, now: now) }
      return []
    }
    if key == .interrupt { return [.quit] }
    // Only the "terminal too small" notice is drawn: no key may answer something unseen.
    guard ScreenLayout.fits(state.terminalSize) else {
      return key == .character("q") ? [.quit] : []
    }
    switch state.overlay {
    case .confirm(let dialog): return ConfirmKeys.press(key, dialog, &state, now: now)
    case .help:
      // Any key closes the help, as in htop; `?` again turns to the legend.
      state.overlay = key == .character("?") ? .legend : nil
      return []
    case .legend:
      state.overlay = nil
      return []
    case nil: break
    }
    if state.filter.isEditing { return FilterKeys.press(key, &state, now: now) }
    return tableKey(key, &state, now: now)
  }

  /// Cancels an open confirm dialog, as a No, once the terminal is too small to show it.
  private static func cancelHiddenDialog(_ state: inout DashboardState, now: Date) {
    guard case .confirm(let dialog) = state.overlay else { return }
    state.overlay = nil
    EngineEventReducer.flushPending(&state, now: now)
    state.notice = Notice(
      text: "\(dialog.action.title) of \(dialog.targetID) cancelled: the terminal became too small",
      postedAt: now)
  }

  private static func tableKey(_ key: Key, _ state: inout DashboardState, now: Date)
    -> [DashboardEffect]
  {
    if TableKeys.press(key, &state, now: now) { return [] }
    if case .character(let c) = key { return character(c, &state, now: now) }
    return []
  }

  private static func character(_ c: Character, _ state: inout DashboardState, now: Date)
    -> [DashboardEffect]
  {
    if "rRpbdux".contains(c), case .disconnected = state.health.connection {
      // Nothing can reach the engine until the link reconnects: say so, send nothing.
      state.notice = Notice(
        text: "not connected: reconnecting to the engine; press \(c) again once attached",
        postedAt: now)
      return []
    }
    switch c {
    case "q": return [.quit]
    case "r": return state.selectedAsset(at: now).map { [.command(.refresh(id: $0.id))] } ?? []
    case "R": return [.command(.refreshAll)]
    case "p":
      return [
        .command(state.info?.autoRefreshPaused == true ? .resumeAutoRefresh : .pauseAutoRefresh)
      ]
    case "n":
      guard state.options.demo else { return [] }
      state.notice = Notice(text: "publishing the demo's next release", postedAt: now)
      return [.nextDemoRelease]
    case "b": openConfirm(.resetToBundled, &state, now: now)
    case "d": openConfirm(.dropCache, &state, now: now)
    case "u": openConfirm(.rollback, &state, now: now)
    case "x": openConfirm(.reject, &state, now: now)
    case "l": state.showsEvents.toggle()
    case "?": state.overlay = .help
    default: break
    }
    return []
  }

  /// Opens the confirm dialog for `action` on the selected asset; a read-only run and a rollback
  /// with no previous generation only post a notice saying why not.
  private static func openConfirm(
    _ action: ConfirmDialog.Action, _ state: inout DashboardState, now: Date
  ) {
    if state.options.readonly {
      // Every key answers: a refusal is said, not swallowed.
      state.notice = Notice(text: "refused: read-only (started with --readonly)", postedAt: now)
      return
    }
    guard let asset = state.selectedAsset(at: now) else { return }
    if action == .reject, asset.source != .cached {
      state.notice = Notice(
        text: "\(asset.id) serves no downloaded version to reject", postedAt: now)
      return
    }
    if action == .reject, !asset.canRollback, !asset.hasBundledCopy {
      state.notice = Notice(
        text: "\(asset.id) has nothing to go back to (no previous or bundled copy)", postedAt: now)
      return
    }
    if action == .rollback, !asset.canRollback {
      state.notice = Notice(
        text: "\(asset.id) has no previous generation to roll back to", postedAt: now)
      return
    }
    let impact = ImpactText.describe(action, asset, info: state.info, now: now)
    state.overlay = .confirm(
      ConfirmDialog(action: action, targetID: asset.id, impact: impact, openedAt: now))
  }
}
