import Foundation
import Synchronization

/// The overall deadline of one HTTP transfer: redirects, response heads and the body together
/// must end within `timeout + bytes / minimumBytesPerSecond` of the start, where `bytes` is the
/// most the body can be: the expected size, else the announced `Content-Length` (or what a `206`
/// has left to send), else `maxBytes`. It is the one bound computed up front that holds whatever
/// the server does: the throughput watchdog times only 2xx bodies and the client's deadline only
/// each response head, so without it a slowly dripped error body or a chain of slow redirects
/// could run on.
///
/// Thread-safe: the transfer tightens it while the watchdog reads it.
final class TransferDeadline: Sendable {
  /// The longest deadline ever computed (a week): keeps every conversion finite and in range.
  static let ceiling: TimeInterval = 7 * 86400

  struct State {
    var bytes: Int64
    /// When a body that is not used must have ended (nil: no such body is being read).
    var unusedBodyDue: ContinuousClock.Instant?
  }

  let start: ContinuousClock.Instant
  let timeout: TimeInterval
  let minimumBytesPerSecond: Int64
  private let state: Mutex<State>

  /// A deadline starting now, for a body of at most `bytes`.
  init(
    timeout: TimeInterval, bytes: Int64, minimumBytesPerSecond: Int64,
    start: ContinuousClock.Instant = .now
  ) {
    self.start = start
    self.timeout = Self.clampSeconds(timeout)
    self.minimumBytesPerSecond = max(1, minimumBytesPerSecond)
    self.state = Mutex(State(bytes: max(0, bytes), unusedBodyDue: nil))
  }

  /// The deadline for `request` with the fetcher's throughput floor.
  convenience init(for request: FetchRequest, minimumBytesPerSecond: Int64) {
    // A resumed request starts with the whole size too: the server may answer with the whole
    // body (a 200, or a restart without a range); a 206 tightens it to what is left.
    let most = max(0, request.expectedSize.map { min($0, request.maxBytes) } ?? request.maxBytes)
    self.init(
      timeout: request.timeout, bytes: most,
      minimumBytesPerSecond: minimumBytesPerSecond)
  }

  /// The body can be no larger than `bytes` (an announced length, or an error body's snippet
  /// limit): the deadline only ever moves earlier.
  func limitBody(to bytes: Int64) {
    state.withLock { $0.bytes = min($0.bytes, max(0, bytes)) }
  }

  /// A body that is not used (an HTTP/2 304's, whose end is the server's `END_STREAM`) is read
  /// for at most `seconds` from `now`: past that the fetcher's watch stops the transfer, and the
  /// reader keeps what it had (the response is used; the client drops the stream). The watch,
  /// which already looks at every transfer each 100 ms, replaced a task group per 304 (a reader,
  /// a sleeper, a timer and two cancellations): a third of an h2 revalidation's context switches.
  func boundUnusedBody(to seconds: TimeInterval, from now: ContinuousClock.Instant = .now) {
    state.withLock { $0.unusedBodyDue = now + Self.duration(seconds) }
  }

  /// The unused body ended (or was given up): no bound any more.
  func endUnusedBody() {
    state.withLock { $0.unusedBodyDue = nil }
  }

  /// Whether an unused body is being read past its bound at `now`.
  func unusedBodyOverdue(at now: ContinuousClock.Instant = .now) -> Bool {
    state.withLock { $0.unusedBodyDue.map { now > $0 } ?? false }
  }

  /// Seconds from the start the transfer may take.
  var allowance: TimeInterval {
    let bytes = state.withLock { $0.bytes }
    return min(Self.ceiling, timeout + Double(bytes) / Double(minimumBytesPerSecond))
  }

  /// Why the transfer must stop at `now`, or nil while it is within its deadline.
  func exceededReason(at now: ContinuousClock.Instant = .now) -> String? {
    let bytes = state.withLock { $0.bytes }
    let allowance = min(Self.ceiling, timeout + Double(bytes) / Double(minimumBytesPerSecond))
    let elapsed = now - start
    guard elapsed > Self.duration(allowance) else { return nil }
    return
      "the transfer passed its overall deadline of \(Self.word(allowance)) (timeout \(Self.word(timeout)) + \(bytes) bytes at the minimum \(minimumBytesPerSecond) bytes/s)"
  }

  /// `seconds` as a `Duration`, clamped to 0...ceiling (never traps).
  static func duration(_ seconds: TimeInterval) -> Duration {
    .milliseconds(milliseconds(seconds))
  }

  /// `seconds` in whole milliseconds (rounded up), clamped to 0...ceiling (never traps).
  static func milliseconds(_ seconds: TimeInterval) -> Int64 {
    Int64((clampSeconds(seconds) * 1000).rounded(.up))
  }

  /// `seconds` clamped to 0...ceiling, with NaN as 0.
  static func clampSeconds(_ seconds: TimeInterval) -> TimeInterval {
    guard seconds.isFinite else { return seconds > 0 ? ceiling : 0 }
    return min(max(seconds, 0), ceiling)
  }

  private static func word(_ seconds: TimeInterval) -> String {
    seconds < 10 ? String(format: "%.1fs", seconds) : DurationText.format(seconds)
  }
}
