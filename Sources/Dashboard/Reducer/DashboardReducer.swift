import AssetModel
import Foundation

/// The dashboard's one state transition: an input and the time in, a new state and effects out.
///
/// A plain function of its arguments (no clock, no I/O), so every key and event is testable.
public enum DashboardReducer {
  /// Applies `input` to `state` at `now` and returns what the host must do (engine commands, quit).
  package static func reduce(_ state: inout DashboardState, _ input: DashboardInput, now: Date)
    -> [DashboardEffect]
  {
    let focus = state.detailFocus
    var effects = apply(input, to: &state, now: now)
    settle(&state, now: now)
    if state.detailFocus != focus { effects.append(.focus(state.detailFocus)) }
    return effects
  }

  /// Applies `inputs` in order at `now`, like one ``reduce(_:_:now:)`` each, but settles the
  /// table (its order, the selection, the scroll) once at the end: a burst of engine events
  /// that moves rows costs one sort, not one per event.
  package static func reduce(
    _ state: inout DashboardState, _ inputs: [DashboardInput], now: Date
  ) -> [DashboardEffect] {
    let focus = state.detailFocus
    var effects: [DashboardEffect] = []
    for input in inputs {
      // Keys look at the rows as they are: settle what the events before them changed.
      if case .key = input { settle(&state, now: now) }
      effects += apply(input, to: &state, now: now)
      if case .key = input { settle(&state, now: now) }
    }
    settle(&state, now: now)
    if state.detailFocus != focus { effects.append(.focus(state.detailFocus)) }
    return effects
  }

  private static func settle(_ state: inout DashboardState, now: Date) {
    state.refreshRows(at: now)
    SelectionKeeper.normalize(&state, now: now)
  }

  private static func apply(_ input: DashboardInput, to state: inout DashboardState, now: Date)
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
    return effects
  }

  /// Drops highlights, notices and rate samples whose time has passed, so the state stays small.
  private static func expire(_ state: inout DashboardState, now: Date) {
    state.changedAt = state.changedAt.filter { state.isRecentlyChanged($0.key, at: now) }
    state.health.prune(now: now)
    if let notice = state.notice, !notice.isShown(at: now) { state.notice = nil }
  }
}
