import CursesTerminal
import Foundation
import TerminalCore

/// The one terminal app shell: glue between the curses backend and a pure ``TerminalView``.
/// Inputs from other threads arrive through an ``Inbox`` and are reduced once per frame as one
/// batch; keys are reduced one at a time as they arrive; a tick is reduced at each new second of
/// the clock; effects other than quitting go to `perform`. Runs on the terminal thread (see
/// ``TerminalApplication``), so its state needs no lock.
///
/// The backend asks for a frame about 20 times a second; rendering a whole view each time costs
/// an idle debug build 10 % of a core. Nothing on screen changes between a key, an input and the
/// next second's tick, so the last frame is reused in between. Inputs the view calls quiet (a
/// revalidation that changed only times shown at a second's precision) wait for the tick too:
/// over ssh every frame is a packet, and a quiet rollout then costs one a second.
final class TerminalAppLoop<View: TerminalView>: TerminalApplication {
  private let inbox: Inbox<View.Input>
  private var state: View.State
  /// Performs every effect that is not a quit, with the state right after the reduce that
  /// asked for it.
  private let perform: (View.Effect, View.State) -> Void
  /// Seconds without a key or an input after which the loop may wake less often; nil: never.
  private let quietAfter: TimeInterval?
  /// Frame statistics for the benchmark, when asked for.
  private let stats: FrameStats?
  /// Called once, when the first frame reached the terminal.
  private var onFirstDraw: (@Sendable () -> Void)?
  private var quit = false
  /// Whether the inbox's source finished (the engine's stream ended): the app then quits.
  private var inboxFinished = false
  private var lastTick = Date.distantPast
  /// When the last key or input arrived (how the loop knows it may wake less often).
  private var lastActivity = Date()
  /// The last frame rendered and its size; reused while nothing that it shows has changed.
  private var lastFrame: (buffer: ScreenBuffer, width: Int, height: Int)?
  /// Whether a key, an input that needs a frame (``TerminalView/needsFrame(_:before:)``) or a
  /// tick changed the state since `lastFrame` was rendered.
  private var dirty = true

  /// A loop showing `state`, fed by `inbox`.
  ///
  /// - Parameters:
  ///   - quietAfter: seconds without a key or an input after which ``isQuiet`` holds (nil: never
  ///     quiet, the backend wakes every idle interval).
  ///   - stats: frame statistics to keep (`scripts/bench.sh`).
  ///   - onFirstDraw: called once, when the first frame reached the terminal.
  ///   - perform: does what an effect other than quitting asks.
  init(
    state: View.State, inbox: Inbox<View.Input>, quietAfter: TimeInterval? = nil,
    stats: FrameStats? = nil, onFirstDraw: (@Sendable () -> Void)? = nil,
    perform: @escaping (View.Effect, View.State) -> Void
  ) {
    self.state = state
    self.inbox = inbox
    self.quietAfter = quietAfter
    self.stats = stats
    self.onFirstDraw = onFirstDraw
    self.perform = perform
  }

  func start(capabilities: TerminalCapabilities, size: TerminalSize) {
    state = View.started(state, capabilities: capabilities, size: size)
  }

  func handle(_ key: Key, now: Date) -> Bool {
    dirty = true
    lastActivity = now
    stats?.keyHandled(at: now)
    apply(View.reduce(&state, View.key(key), now: now))
    return !quit
  }

  func frame(width: Int, height: Int, now: Date) -> ScreenBuffer {
    let (inputs, finished) = inbox.drain()
    stats?.eventsTaken(inputs.count)
    if !inputs.isEmpty {
      lastActivity = now
      if View.needsFrame(inputs, before: state) { dirty = true }
      apply(View.reduce(&state, batch: inputs, now: now))
    }
    inboxFinished = finished
    // Relative times, highlights and notices age: tick at each new second of the clock (so the
    // header's clock turns on time). The backend draws only when the rendered buffer differs,
    // so an idle screen costs no output.
    if floor(now.timeIntervalSince1970) != floor(lastTick.timeIntervalSince1970) {
      lastTick = now
      apply(View.reduce(&state, View.tick, now: now))
      dirty = true
    }
    if !dirty, let last = lastFrame, last.width == width, last.height == height {
      return last.buffer
    }
    let buffer = View.render(state, width: width, height: height, now: now)
    lastFrame = (buffer, width, height)
    dirty = false
    return buffer
  }

  var wantsToQuit: Bool { quit || inboxFinished }

  var isQuiet: Bool {
    guard let quietAfter else { return false }
    return Date().timeIntervalSince(lastActivity) > quietAfter
  }

  /// The inbox's: an input wakes the loop's wait, so a quiet screen is asked for a frame only
  /// at each new second and when something arrives.
  var wakeSignal: WakeSignal? { inbox.wake }

  func didDraw(at now: Date) {
    stats?.didDraw(at: now)
    onFirstDraw?()
    onFirstDraw = nil
  }

  private func apply(_ effects: [View.Effect]) {
    for effect in effects {
      if View.isQuit(effect) { quit = true } else { perform(effect, state) }
    }
  }
}
