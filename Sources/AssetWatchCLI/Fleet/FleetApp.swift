import CursesTerminal
import Dashboard
import FleetModel
import Foundation
import Synchronization
import TerminalCore

/// Fleet answers waiting for the terminal thread, and the user's "query now" (with the asset and
/// page wanted) going the other way. Both sides only take the lock for an append or a swap.
final class FleetInbox: Sendable {
  private let state = Mutex<(inputs: [FleetInput], refreshWanted: Bool, request: FleetPageRequest)>(
    ([], false, FleetPageRequest()))

  /// Queues an answer (or a failure) from the poller.
  func post(_ input: FleetInput) { state.withLock { $0.inputs.append(input) } }

  /// Takes every queued answer.
  func drain() -> [FleetInput] {
    state.withLock { s in
      defer { s.inputs.removeAll(keepingCapacity: true) }
      return s.inputs
    }
  }

  /// Asks the poller to query at once, for `request`'s rows.
  func requestRefresh(_ request: FleetPageRequest) {
    state.withLock {
      $0.refreshWanted = true
      $0.request = request
    }
  }

  /// The rows the view wants now.
  var request: FleetPageRequest { state.withLock { $0.request } }

  /// Whether a refresh was asked for since the last call (and clears the request).
  func takeRefreshRequest() -> Bool {
    state.withLock { s in
      defer { s.refreshWanted = false }
      return s.refreshWanted
    }
  }
}

/// Glue between the curses backend and the pure fleet view, as `DashboardApp` is for the asset
/// dashboard: answers in through the inbox, keys through ``FleetReducer``. Runs on the terminal
/// thread.
final class FleetApp: TerminalApplication {
  private let inbox: FleetInbox
  private var state: FleetState
  private var quit = false
  private var lastTick = Date.distantPast
  private var lastFrame: (buffer: ScreenBuffer, width: Int, height: Int)?
  private var dirty = true

  init(state: FleetState, inbox: FleetInbox) {
    self.state = state
    self.inbox = inbox
  }

  func start(capabilities: TerminalCapabilities, size: TerminalSize) {
    let options = state.options
    state = FleetState(
      options: DashboardOptions(
        color: options.color && capabilities.colors,
        unicode: options.unicode && capabilities.unicode, timeZone: options.timeZone),
      source: state.source, interval: state.interval, terminalSize: size,
      request: state.request)
  }

  func handle(_ key: Key, now: Date) -> Bool {
    dirty = true
    apply(.key(key), now: now)
    return !quit
  }

  func frame(width: Int, height: Int, now: Date) -> ScreenBuffer {
    let inputs = inbox.drain()
    for input in inputs { apply(input, now: now) }
    // Ages and the clock move every second; between a key, an answer and the next second the
    // last frame is reused (as the dashboard does).
    if floor(now.timeIntervalSince1970) != floor(lastTick.timeIntervalSince1970) {
      lastTick = now
      apply(.tick, now: now)
      dirty = true
    }
    if !dirty, inputs.isEmpty, let last = lastFrame, last.width == width, last.height == height {
      return last.buffer
    }
    let buffer = FleetRenderer.render(state, width: width, height: height, now: now)
    lastFrame = (buffer, width, height)
    dirty = false
    return buffer
  }

  var wantsToQuit: Bool { quit }

  private func apply(_ input: FleetInput, now: Date) {
    for effect in FleetReducer.reduce(&state, input, now: now) {
      switch effect {
      case .refresh: inbox.requestRefresh(state.request)
      case .quit: quit = true
      }
    }
  }
}
