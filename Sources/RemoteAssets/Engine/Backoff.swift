import Foundation

/// When to try again after failures: exponential backoff with full jitter, honouring `Retry-After`.
public struct Backoff: Sendable, Equatable {
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
  public func delay(
    failures: Int, retryAfter: TimeInterval?, random: Double = Double.random(in: 0...1)
  ) -> TimeInterval {
    let exponent = Double(min(max(failures, 1), 30))
    let window = min(cap, base * pow(2, exponent))
    let jittered = window * min(max(random, 0), 1)
    guard let retryAfter else { return jittered }
    return max(jittered, min(retryAfter, cap))
  }
}
