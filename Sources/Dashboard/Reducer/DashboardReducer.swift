import AssetModel
import Foundation

/// The dashboard's one state transition: an input and the time in, a new state and effects out.
///
/// A plain function of its arguments (no clock, no I/O), so every key and event is testable.
public enum DashboardReducer {
  /// Applies `input` to `state` at `now` and returns what the host must do (engine commands, quit).
  public static func reduce(_ state: inout DashboardState, _ input: DashboardInput, now: Date)
    -> [DashboardEffect]
  {
    let effects: [DashboardEffect]
    switch input {
    case .engine(let event):
      EngineEventReducer.receive(event, into: &state, now: now)
      effects = []
    case .key(let key):
      effects = KeyReducer.press(key, on: &state, now: now)
    case .tick:
      expire(&state, now: now)
      effects = []
    case .connection(let connection):
      state.health.connection = connection
      effects = []
    }
    SelectionKeeper.normalize(&state, now: now)
    return effects
  }

  /// Drops highlights, notices and rate samples whose time has passed, so the state stays small.
  private static func expire(_ state: inout DashboardState, now: Date) {
    state.changedAt = state.changedAt.filter { state.isRecentlyChanged($0.key, at: now) }
    state.health.prune(now: now)
    if let notice = state.notice, !notice.isShown(at: now) { state.notice = nil }
  }
}
