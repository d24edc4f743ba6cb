import FleetModel
import Foundation
import TerminalCore

/// Everything that can change the fleet view.
public enum FleetInput: Sendable {
  /// Prometheus answered every query: the fleet now.
  case snapshot(FleetSnapshot)
  /// A query failed; the sentence says why (already sanitized).
  case queryFailed(String)
  /// A key the user pressed (or a resize).
  case key(Key)
  /// Time passed.
  case tick
}

/// What the fleet view asks its host to do.
public enum FleetEffect: Sendable, Equatable {
  /// Query Prometheus now instead of at the next interval (`r`).
  case refresh
  /// Restore the terminal and exit.
  case quit
}

/// The fleet view's one state transition; a plain function of its arguments.
///
/// The table keys (moving, `/` filter, `s`/`S` sort, Enter detail, Esc) are the dashboard's own
/// (`TableKeys`, `FilterKeys`); `←` `→` show the previous or next asset's rows, `[` `]` the
/// previous or next page of them (each asks Prometheus at once), `r` queries now, `?` shows the
/// keys, `q` quits.
public enum FleetReducer {
  /// Applies `input` to `state` at `now`; returns what the host must do.
  public static func reduce(_ state: inout FleetState, _ input: FleetInput, now: Date)
    -> [FleetEffect]
  {
    var effects: [FleetEffect] = []
    switch input {
    case .snapshot(let snapshot):
      state.snapshot = snapshot
      state.updatedAt = now
      state.lastError = nil
    case .queryFailed(let message):
      state.lastError = message
    case .key(let key):
      effects = press(key, &state, now: now)
    case .tick:
      break
    }
    SelectionKeeper.normalize(&state, now: now)
    return effects
  }

  private static func press(_ key: Key, _ state: inout FleetState, now: Date) -> [FleetEffect] {
    if case .resize(let width, let height) = key {
      state.terminalSize = TerminalSize(width: width, height: height)
      return []
    }
    if key == .interrupt { return [.quit] }
    if state.showsHelp {
      state.showsHelp = false  // any key closes the help, as in the dashboard
      return []
    }
    if state.filter.isEditing {
      _ = FilterKeys.press(key, &state, now: now)
      return []
    }
    if TableKeys.press(key, &state, now: now) { return [] }
    switch key {
    case .character("q"): return [.quit]
    case .character("r"): return [.refresh]
    case .left, .right: return switchAsset(by: key == .left ? -1 : 1, &state)
    case .character("["), .character("]"):
      return turnPage(by: key == .character("[") ? -1 : 1, &state)
    case .character("?"): state.showsHelp = true
    default: break
    }
    return []
  }

  /// Asks for the asset `step` places away (in the header's order, wrapping), page 1.
  private static func switchAsset(by step: Int, _ state: inout FleetState) -> [FleetEffect] {
    guard let snapshot = state.snapshot, !snapshot.rollouts.isEmpty else { return [] }
    let assets = snapshot.rollouts.map(\.asset)
    let current = state.request.asset ?? snapshot.page?.asset
    let index = current.flatMap { assets.firstIndex(of: $0) } ?? 0
    let next = assets[((index + step) % assets.count + assets.count) % assets.count]
    state.request = FleetPageRequest(asset: next, page: 1)
    state.scrollOffset = 0
    state.selectedID = nil
    state.selectedRowHint = 0
    return [.refresh]
  }

  /// Asks for the page `step` away, within the pages there are.
  private static func turnPage(by step: Int, _ state: inout FleetState) -> [FleetEffect] {
    guard let page = state.snapshot?.page else { return [] }
    let number = min(max(1, page.number + step), page.pages)
    guard number != page.number else { return [] }
    state.request = FleetPageRequest(asset: page.asset, page: number)
    state.scrollOffset = 0
    state.selectedID = nil
    state.selectedRowHint = 0
    return [.refresh]
  }
}
