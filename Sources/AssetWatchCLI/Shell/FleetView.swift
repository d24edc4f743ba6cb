import Dashboard
import Foundation
import TerminalCore

/// The fleet view as a ``TerminalView``: ``FleetReducer`` and ``FleetRenderer``.
enum FleetView: TerminalView {
  static func key(_ key: Key) -> FleetInput { .key(key) }

  static var tick: FleetInput { .tick }

  static func isQuit(_ effect: FleetEffect) -> Bool { effect == .quit }

  static func reduce(_ state: inout FleetState, _ input: FleetInput, now: Date) -> [FleetEffect] {
    FleetReducer.reduce(&state, input, now: now)
  }

  /// One reduce per answer, in order (an answer replaces the table; there is no sort to save).
  static func reduce(_ state: inout FleetState, batch inputs: [FleetInput], now: Date)
    -> [FleetEffect]
  {
    var effects: [FleetEffect] = []
    for input in inputs { effects += FleetReducer.reduce(&state, input, now: now) }
    return effects
  }

  static func render(_ state: FleetState, width: Int, height: Int, now: Date) -> ScreenBuffer {
    FleetRenderer.render(state, width: width, height: height, now: now)
  }

  /// The same state with its options narrowed to what the terminal can do, and the size.
  static func started(
    _ state: FleetState, capabilities: TerminalCapabilities, size: TerminalSize
  ) -> FleetState {
    let options = state.options
    return FleetState(
      options: DashboardOptions(
        color: options.color && capabilities.colors,
        unicode: options.unicode && capabilities.unicode, timeZone: options.timeZone),
      source: state.source, interval: state.interval, terminalSize: size,
      request: state.request)
  }
}
