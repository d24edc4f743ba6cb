import CNCurses
import CTerminalGuard
import Foundation
import TerminalCore

/// The terminal thread's loop: ask the app for a frame, draw it when it changed, wait for keys.
final class TerminalLoop {
  /// Keys handled per turn at most, so a flood of input cannot starve drawing.
  private static let keysPerTurn = 64

  private let app: any TerminalApplication
  private let screen: CursesScreen
  private let painter: ScreenPainter
  private var pacer = FramePacer()
  private let clock = ContinuousClock()
  /// The frame on the terminal now; nil forces the next frame to be drawn (after a resize).
  private var lastDrawn: ScreenBuffer?
  /// Whether the last turn stopped at ``keysPerTurn`` with keys still queued (the next wait
  /// must not block: curses may hold them where a poll of standard input cannot see them).
  private var keysLeft = false

  /// Creates a loop drawing `app` on `screen`.
  init(app: any TerminalApplication, screen: CursesScreen) {
    self.app = app
    self.screen = screen
    let palette = CursesPalette(
      colors: screen.capabilities.colors, defaultColors: screen.defaultColors,
      pairLimit: Int(cncurses_color_pairs()),
      definePair: { pair, foreground, background in _ = init_pair(pair, foreground, background) })
    self.painter = ScreenPainter(
      window: screen.window, palette: palette, unicode: screen.capabilities.unicode)
    // Data wakes the wait itself: a quiet app needs asking only at each new second.
    if app.wakeSignal != nil { pacer.quietWaitMilliseconds = 1_001 }
  }

  /// Runs until the app quits or SIGINT/SIGTERM arrives.
  func run() -> TerminalExit {
    while true {
      if let exit = pendingExit() { return exit }
      // Too soon after the last draw: the app is not even asked for a frame (under a storm of
      // events it renders at most 30 times a second, and folds the events in between together).
      let allowed = pacer.mayDraw(at: clock.now)
      if allowed { drawFrameIfChanged() }
      let now = Date().timeIntervalSince1970
      let wait = pacer.waitMilliseconds(
        framePending: !allowed, at: clock.now, quiet: app.isQuiet,
        millisecondsIntoSecond: Int((now - now.rounded(.down)) * 1000))
      if !handleKeys(waitingMilliseconds: wait) { return .quit }
    }
  }

  private func pendingExit() -> TerminalExit? {
    let signal = ctg_pending_stop_signal()
    if signal != 0 { return .signal(signal) }
    if Self.terminalHungUp() { return .signal(SIGHUP) }
    return app.wantsToQuit ? .quit : nil
  }

  /// Whether the terminal went away (a dropped ssh session, a killed tmux): the kernel reports a
  /// hang-up on standard input. Without this check a loop on a dead tty would spin, since every
  /// read fails at once, even when no SIGHUP reaches this process.
  private static func terminalHungUp() -> Bool {
    var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, 0) > 0 else { return false }
    return descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
  }

  /// Asks the app for a frame and draws it if it changed (the caller checked the frame cap).
  private func drawFrameIfChanged() {
    let size = screen.size
    let frame = app.frame(width: size.width, height: size.height, now: Date())
    guard frame != lastDrawn else { return }
    painter.paint(frame, over: lastDrawn)
    lastDrawn = frame
    pacer.didDraw(at: clock.now)
    app.didDraw(at: Date())
  }

  /// Waits up to `waitingMilliseconds` for a key, then takes whatever else is already queued;
  /// returns false when the app wants to quit.
  private func handleKeys(waitingMilliseconds: Int32) -> Bool {
    var wait = keysLeft ? 0 : waitingMilliseconds
    if let signal = app.wakeSignal, wait > 0 {
      Self.waitForKeyOrWake(signal, milliseconds: wait)
      wait = 0
    }
    wtimeout(screen.window, wait)
    var handled = 0
    while handled < Self.keysPerTurn, let input = readInput() {
      handled += 1
      wtimeout(screen.window, 0)
      let size = screen.size
      guard let key = KeyDecoder.decode(input, width: size.width, height: size.height) else {
        continue
      }
      if case .resize = key { lastDrawn = nil }
      if !app.handle(key, now: Date()) { return false }
    }
    keysLeft = handled == Self.keysPerTurn
    return true
  }

  /// Waits up to `milliseconds` until standard input is readable (or hung up), `signal` is
  /// raised, or a signal interrupts the wait (a resize, a stop); then takes the wakes.
  private static func waitForKeyOrWake(_ signal: WakeSignal, milliseconds: Int32) {
    var descriptors = [
      pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
      pollfd(fd: signal.descriptor, events: Int16(POLLIN), revents: 0),
    ]
    _ = poll(&descriptors, 2, milliseconds)
    signal.drain()
  }

  /// One `wget_wch`; nil on timeout or when a signal interrupted the wait.
  private func readInput() -> KeyDecoder.Input? {
    var value: wint_t = 0
    switch wget_wch(screen.window, &value) {
    case OK: return .character(UInt32(value))
    case KEY_CODE_YES: return .keyCode(Int32(bitPattern: value))
    default: return nil
    }
  }
}
