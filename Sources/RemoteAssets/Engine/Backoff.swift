import Foundation

/// When to try again after failures: exponential backoff with full jitter, honouring `Retry-After`.
package struct Backoff: Sendable, Equatable {
  /// The first window, in seconds.
  public var base: TimeInterval
  /// The largest window, in seconds (15 minutes by default).
  public var cap: TimeInterval

  /// Creates a backoff policy.
  public init(base: TimeInterval = 2, cap: TimeInterval = 900) {
    self.base = base
    self.cap = cap
  }

  /// Seconds to wait after `failures` failures in a row (1 for the first).
  ///
  /// Delay = random(0, min(cap, base * 2^failures)), but never less than `retryAfter` (itself
  /// clamped to `cap`, so a hostile server cannot park the asset for days).
  ///
  /// Total for any input: a failure count of `Int.max`, a NaN or infinite `retryAfter` or
  /// `random`, or a policy with a negative or non-finite base or cap still give a finite delay in
  /// `0...cap` (a non-finite cap counts as one day), so the caller's date arithmetic cannot trap.
  public func delay(
    failures: Int, retryAfter: TimeInterval?, random: Double = Double.random(in: 0...1)
  ) -> TimeInterval {
    let cap = self.cap.isFinite ? max(self.cap, 0) : 86400
    let exponent = Double(min(max(failures, 1), 30))
    let window = min(cap, Self.finite(base) * pow(2, exponent))
    let jittered = window * (random.isNaN ? 1 : min(max(random, 0), 1))
    guard let retryAfter, !retryAfter.isNaN else { return jittered }
    return max(jittered, min(max(retryAfter, 0), cap))
  }

  /// Seconds to wait after `failures` failures in a row that retrying soon will not mend (a 404,
  /// a response that fails validation, a full disk) for an asset checked every `interval`.
  ///
  /// The window doubles from the interval with each failure, `interval * 2^failures`, up to
  /// `max(cap, interval)`; the delay is drawn uniformly between the interval and the window, so
  /// a failing asset is never checked more often than a healthy one, and a fleet that fails
  /// together spreads out. Total like ``delay(failures:retryAfter:random:)``.
  public func delay(
    every interval: TimeInterval, failures: Int, random: Double = .random(in: 0...1)
  )
    -> TimeInterval
  {
    let interval = min(Self.finite(interval), 86400 * 365)
    let cap = max(self.cap.isFinite ? max(self.cap, 0) : 86400, interval)
    let exponent = Double(min(max(failures, 1), 30))
    let window = max(interval, min(cap, interval * pow(2, exponent)))
    let unit = random.isNaN ? 1 : min(max(random, 0), 1)
    return interval + (window - interval) * unit
  }

  /// The failure count after one more failure: saturates at `Int.max` instead of trapping (an
  /// entry file can hold any count).
  public static func failureCount(after failures: Int) -> Int {
    let (next, overflow) = max(failures, 0).addingReportingOverflow(1)
    return overflow ? Int.max : next
  }

  private static func finite(_ seconds: TimeInterval) -> TimeInterval {
    seconds.isFinite ? max(seconds, 0) : 0
  }
}
