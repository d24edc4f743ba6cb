import Dispatch
import Foundation

/// Turns signals (SIGINT/SIGTERM, SIGHUP) into awaitable values instead of their default action,
/// so commands can shut the engine down (and the dashboard restore the terminal) first, and
/// `serve` can reload its config on SIGHUP. The signals are ignored from `init` on: one that
/// arrives before anybody reads ``signals`` waits there.
/// Keep the watcher alive while waiting on ``signals``.
final class SignalWatcher {
  /// Signal numbers as they arrive.
  let signals: AsyncStream<Int32>
  private let sources: [any DispatchSourceSignal]

  init(signals: [Int32]) {
    let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
    self.signals = stream
    sources = signals.map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { continuation.yield(number) }
      source.resume()
      return source
    }
  }

  deinit { for source in sources { source.cancel() } }
}
