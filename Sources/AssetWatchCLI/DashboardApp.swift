import Dashboard
import Foundation
import RemoteAssets

/// The asset dashboard in the terminal: the app shell driving ``DashboardView``. Engine events
/// come in through the inbox, keys through the reducer, commands go out through a continuation.
typealias DashboardApp = TerminalAppLoop<DashboardView>

extension TerminalAppLoop where View == DashboardView {
  /// The dashboard for `options`, fed by `inbox`; engine commands go to `commands`. Quiet after
  /// two seconds without a key or an event; quits when the inbox finishes (the engine ended).
  ///
  /// - Parameters:
  ///   - nextDemoRelease: what `n` does in `assetwatch demo` (publish the next release).
  ///   - focus: told which asset the detail pane shows (nil: it closed).
  convenience init(
    options: DashboardOptions, inbox: EventInbox, commands: AsyncStream<AssetCommand>.Continuation,
    stats: FrameStats? = nil, onFirstDraw: (@Sendable () -> Void)? = nil,
    nextDemoRelease: (@Sendable () -> Void)? = nil,
    focus: (@Sendable (String?) -> Void)? = nil
  ) {
    self.init(
      state: DashboardState(options: options), inbox: inbox, quietAfter: 2, stats: stats,
      onFirstDraw: onFirstDraw
    ) { effect, _ in
      switch effect {
      case .command(let command): commands.yield(command)
      case .nextDemoRelease: nextDemoRelease?()
      case .focus(let id): focus?(id)
      case .quit: break
      }
    }
  }
}
