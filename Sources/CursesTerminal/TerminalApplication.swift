import Foundation
import TerminalCore

/// An app that the curses backend drives: it learns what the terminal can do, takes keys and
/// produces frames.
///
/// The backend calls every requirement on its terminal thread, never concurrently, so an
/// implementation needs no locking for state that only these methods touch. Data arriving from
/// other threads (engine events) must reach the app through a thread-safe inbox (a `Mutex`) that
/// `frame` drains; keys go back out through, for example, an `AsyncStream` continuation.
public protocol TerminalApplication: AnyObject {
  /// Tells the app what the terminal supports and how big it is, once, before the first `frame`
  /// call; later sizes arrive as `Key.resize` keys.
  func start(capabilities: TerminalCapabilities, size: TerminalSize)
  /// Handles a key that arrived at `now`; returns false to quit.
  func handle(_ key: Key, now: Date) -> Bool
  /// Produces the frame for a terminal of this size; called every loop turn (about 20 times a
  /// second, never sooner than the frame cap allows), and drawn only when it differs from the
  /// last frame drawn, at most 30 times a second.
  func frame(width: Int, height: Int, now: Date) -> ScreenBuffer
  /// Whether the app wants to stop (for example, the engine finished); checked every loop turn.
  var wantsToQuit: Bool { get }
  /// Tells the app that the frame it produced last was sent to the terminal at `now` (for
  /// frame statistics; the default does nothing).
  func didDraw(at now: Date)
  /// Whether nothing has happened for a while (no data in, no key): the loop then wakes at
  /// most four times a second and at each new second of the clock (a key still wakes it at
  /// once) instead of 20 times a second, so an idle screen costs next to nothing. The first
  /// change after a quiet spell reaches the screen within a quarter second; with a
  /// ``wakeSignal``, at once, and the quiet loop wakes only at each new second.
  var isQuiet: Bool { get }
  /// A signal the app raises when data arrives from another thread (the default: none). The
  /// loop waits on it with standard input, so a quiet app is not polled to find out.
  var wakeSignal: WakeSignal? { get }
}

extension TerminalApplication {
  /// Does nothing.
  public func didDraw(at now: Date) {}

  /// Never quiet: the loop wakes every idle interval.
  public var isQuiet: Bool { false }

  /// None: the loop polls the app every idle or quiet interval.
  public var wakeSignal: WakeSignal? { nil }
}
