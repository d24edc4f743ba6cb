import Foundation
import TerminalCore

/// The pure half of a full-screen view (the asset dashboard, the fleet view): its state, the
/// inputs that change it, the reducer, and the renderer. ``TerminalAppLoop`` is the other half,
/// the same for every view: it feeds keys, inbox inputs and ticks to the reducer and asks the
/// renderer for frames.
///
/// Every requirement is a plain function of its arguments, so a view is tested as
/// state + input -> state and state -> screen buffer, without a terminal.
protocol TerminalView {
  /// Everything the view shows.
  associatedtype State
  /// What changes the state: keys, ticks, and whatever the inbox brings.
  associatedtype Input: Sendable
  /// What the reducer asks the host to do.
  associatedtype Effect

  /// The input for a key the user pressed (or a resize).
  static func key(_ key: Key) -> Input
  /// The input for "a new second began" (relative times, highlights and notices age).
  static var tick: Input { get }
  /// Whether `effect` asks the app to stop.
  static func isQuit(_ effect: Effect) -> Bool

  /// Applies one input at `now`.
  static func reduce(_ state: inout State, _ input: Input, now: Date) -> [Effect]
  /// Applies the inputs taken from the inbox in one frame, in order, at `now`.
  static func reduce(_ state: inout State, batch inputs: [Input], now: Date) -> [Effect]
  /// The screen for `state` on a `width` x `height` terminal at `now`.
  static func render(_ state: State, width: Int, height: Int, now: Date) -> ScreenBuffer
  /// Whether `inputs`, taken from the inbox and about to be applied to `state`, change
  /// something a frame must show at once; false when the next second's tick may draw them
  /// (changes shown at a second's precision anyway).
  static func needsFrame(_ inputs: [Input], before state: State) -> Bool
  /// `state` for a terminal with these capabilities and this size (colours and UTF-8 off when
  /// the terminal lacks them), once, when the terminal starts.
  static func started(
    _ state: State, capabilities: TerminalCapabilities, size: TerminalSize
  ) -> State
}

extension TerminalView {
  /// Every input asks for a frame.
  static func needsFrame(_ inputs: [Input], before state: State) -> Bool { !inputs.isEmpty }
}
