import CursesTerminal
import Dashboard
import Foundation
import RemoteAssets
import Synchronization
import TerminalCore

/// Engine events waiting for the terminal thread: filled by the async side, drained by `frame`.
final class EventInbox: Sendable {
  private let state = Mutex<(events: [DashboardInput], finished: Bool)>(([], false))

  /// Queues an event (never blocks for long: the lock only guards an append).
  func post(_ event: EngineEvent) { state.withLock { $0.events.append(.engine(event)) } }

  /// Queues any other input from the async side (a connection change when attached).
  func post(input: DashboardInput) { state.withLock { $0.events.append(input) } }

  /// Marks the engine's stream as ended.
  func finish() { state.withLock { $0.finished = true } }

  /// Takes every queued event.
  func drain() -> (events: [DashboardInput], finished: Bool) {
    state.withLock { s in
      defer { s.events.removeAll(keepingCapacity: true) }
      return (s.events, s.finished)
    }
  }
}

/// Glue between the curses backend and the pure dashboard: engine events in through the inbox,
/// keys through the reducer, commands out through a continuation. Runs on the terminal thread.
final class DashboardApp: TerminalApplication {
  private let inbox: EventInbox
  private let commands: AsyncStream<AssetCommand>.Continuation
  private var options: DashboardOptions
  private var state: DashboardState
  private var quit = false
  private var engineFinished = false
  private var lastTick = Date.distantPast
  /// When the last key or event arrived (how the loop knows it may wake less often).
  private var lastActivity = Date()
  /// The last frame rendered and its size; reused while nothing that it shows has changed.
  private var lastFrame: (buffer: ScreenBuffer, width: Int, height: Int)?
  /// Whether a key, an event or a tick changed the state since `lastFrame` was rendered.
  private var dirty = true
  /// Frame statistics for the benchmark, when asked for.
  private let stats: FrameStats?
  /// Called once, when the first frame reached the terminal.
  private var onFirstDraw: (@Sendable () -> Void)?

  init(
    options: DashboardOptions, inbox: EventInbox, commands: AsyncStream<AssetCommand>.Continuation,
    stats: FrameStats? = nil, onFirstDraw: (@Sendable () -> Void)? = nil
  ) {
    self.onFirstDraw = onFirstDraw
    self.options = options
    self.state = DashboardState(options: options)
    self.inbox = inbox
    self.commands = commands
    self.stats = stats
  }

  func start(capabilities: TerminalCapabilities, size: TerminalSize) {
    options.unicode = options.unicode && capabilities.unicode
    options.color = options.color && capabilities.colors
    state = DashboardState(options: options, terminalSize: size)
  }

  func handle(_ key: Key, now: Date) -> Bool {
    dirty = true
    lastActivity = now
    stats?.keyHandled(at: now)
    apply(.key(key), now: now)
    return !quit
  }

  func frame(width: Int, height: Int, now: Date) -> ScreenBuffer {
    let (events, finished) = inbox.drain()
    stats?.eventsTaken(events.count)
    if !events.isEmpty { lastActivity = now }
    // One reduce for the whole batch: the table is re-sorted at most once per frame.
    if !events.isEmpty { perform(DashboardReducer.reduce(&state, events, now: now)) }
    engineFinished = finished
    // Relative times, highlights and notices age: tick at each new second of the clock (so the
    // header's clock turns on time). The backend draws only when the rendered buffer differs,
    // so an idle screen costs no output.
    if floor(now.timeIntervalSince1970) != floor(lastTick.timeIntervalSince1970) {
      lastTick = now
      apply(.tick, now: now)
      dirty = true
    }
    // The backend asks for a frame about 20 times a second; rendering the whole dashboard each
    // time cost an idle debug build 10 % of a core. Nothing on screen changes between a key, an
    // event and the next second's tick, so the last frame is reused in between.
    if !dirty, events.isEmpty, let last = lastFrame, last.width == width, last.height == height {
      return last.buffer
    }
    let buffer = DashboardRenderer.render(state, width: width, height: height, now: now)
    lastFrame = (buffer, width, height)
    dirty = false
    return buffer
  }

  var wantsToQuit: Bool { quit || engineFinished }

  /// Quiet after two seconds without a key or an event.
  var isQuiet: Bool { Date().timeIntervalSince(lastActivity) > 2 }

  func didDraw(at now: Date) {
    stats?.didDraw(at: now)
    onFirstDraw?()
    onFirstDraw = nil
  }

  private func apply(_ input: DashboardInput, now: Date) {
    perform(DashboardReducer.reduce(&state, input, now: now))
  }

  private func perform(_ effects: [DashboardEffect]) {
    for effect in effects {
      switch effect {
      case .command(let command): commands.yield(command)
      case .quit: quit = true
      }
    }
  }
}
