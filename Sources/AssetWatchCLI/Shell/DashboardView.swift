import Dashboard
import Foundation
import TerminalCore

/// The asset dashboard as a ``TerminalView``: ``DashboardReducer`` and ``DashboardRenderer``.
enum DashboardView: TerminalView {
  static func key(_ key: Key) -> DashboardInput { .key(key) }

  static var tick: DashboardInput { .tick }

  static func isQuit(_ effect: DashboardEffect) -> Bool { effect == .quit }

  static func reduce(_ state: inout DashboardState, _ input: DashboardInput, now: Date)
    -> [DashboardEffect]
  {
    DashboardReducer.reduce(&state, input, now: now)
  }

  /// One reduce for the whole batch: the table is re-sorted at most once per frame.
  static func reduce(_ state: inout DashboardState, batch inputs: [DashboardInput], now: Date)
    -> [DashboardEffect]
  {
    DashboardReducer.reduce(&state, inputs, now: now)
  }

  /// A revalidation that changed nothing but its times (``QuietChange``) waits for the tick.
  static func needsFrame(_ inputs: [DashboardInput], before state: DashboardState) -> Bool {
    inputs.contains { !QuietChange.isQuiet($0, over: state) }
  }

  static func render(_ state: DashboardState, width: Int, height: Int, now: Date) -> ScreenBuffer {
    DashboardRenderer.render(state, width: width, height: height, now: now)
  }

  /// A fresh state for the options narrowed to what the terminal can do.
  static func started(
    _ state: DashboardState, capabilities: TerminalCapabilities, size: TerminalSize
  ) -> DashboardState {
    var options = state.options
    options.unicode = options.unicode && capabilities.unicode
    options.color = options.color && capabilities.colors
    return DashboardState(options: options, terminalSize: size)
  }
}
