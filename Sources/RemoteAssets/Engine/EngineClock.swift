import Foundation

/// The engine's source of time: wall-clock `now` for freshness and a way to sleep for schedules.
/// Tests inject `ManualClock` (the `RemoteAssetsTesting` product) to move time by hand.
public protocol EngineClock: Sendable {
  /// The current time.
  func now() -> Date
  /// Sleeps for `seconds` of this clock's time.
  ///
  /// - Throws: `CancellationError` when the task is cancelled.
  func sleep(for seconds: TimeInterval) async throws
  /// Seconds elapsed since an origin fixed for the process; never stepped with the wall clock,
  /// so deadlines within one run (probation's `confirmAfter`) last elapsed time.
  func uptime() -> TimeInterval
}

extension EngineClock {
  /// The wall clock as seconds: a clock that does not say how much time elapsed follows its
  /// wall clock, steps included.
  public func uptime() -> TimeInterval { now().timeIntervalSinceReferenceDate }
}

/// Real time.
public struct SystemClock: EngineClock {
  /// Creates the system clock.
  public init() {}
  public func now() -> Date { Date() }
  /// The continuous clock (it counts while the machine sleeps, and a wall-clock step does not
  /// move it), since the first reading in the process.
  public func uptime() -> TimeInterval {
    let elapsed = ContinuousClock.now - Self.origin
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
  }
  private static let origin = ContinuousClock.now
  public func sleep(for seconds: TimeInterval) async throws {
    try await Task.sleep(for: .milliseconds(Int64(max(0, seconds) * 1000)))
  }
}
