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
/// (`TableKeys`, `FilterKeys`); `r` queries now, `?` shows the keys, `q` quits.
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
    case .character("?"): state.showsHelp = true
    default: break
    }
    return []
  }
}
