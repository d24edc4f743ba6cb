import Foundation

/// The manifest's single flight and backoff, as a value that decides and does no I/O: the engine
/// asks it and performs what it answers (fetch, join the fetch under way, wait).
///
/// A check is either under way or not. A caller that wants the manifest checked while one is
/// under way joins it instead of starting another; the scheduler starts one when it is due. A
/// success schedules the next check one interval later; a failure backs off (``Backoff``) and
/// keeps the previous targets in force.
struct ManifestSchedule: Sendable, Equatable {
  /// What a caller that wants the manifest checked should do.
  enum Start: Sendable, Equatable {
    /// Start a fetch (this caller performs it).
    case fetch
    /// Wait for the fetch under way.
    case join
  }

  /// How long the scheduler holds off a new check while one it started is under way (replaced
  /// when the check ends).
  static let holdWhileChecking: TimeInterval = 3600

  /// When the next automatic check is due; nil before the first.
  private(set) var nextAttempt: Date?
  /// Failures in a row.
  private(set) var failures = 0
  /// Why the last check failed, safe for a terminal; nil after a success.
  private(set) var error: String?
  /// Whether a check is under way.
  private(set) var isChecking = false
  /// How many callers joined the check under way.
  private(set) var waiting = 0

  /// A caller wants the manifest checked now.
  mutating func begin() -> Start {
    if isChecking {
      waiting += 1
      return .join
    }
    isChecking = true
    return .fetch
  }

  /// Whether the scheduler should start a check at `now`. When it should, further automatic
  /// starts are held off until the check ends.
  mutating func startIfDue(at now: Date) -> Bool {
    guard nextAttempt.map({ $0 <= now }) ?? true else { return false }
    schedule(at: now, in: Self.holdWhileChecking)
    return true
  }

  /// The wall clock was stepped back to `now` (``SchedulerCore/noteClock(_:)`` noticed it, the
  /// place every wall-clock deadline learns of a step): the next check is due at once, instead of
  /// waiting out the step as well. Nothing to move before the first check.
  mutating func clockSteppedBack(to now: Date) {
    nextAttempt = nextAttempt.map { min($0, now) }
  }

  private mutating func schedule(at now: Date, in delay: TimeInterval) {
    nextAttempt = now.addingTimeInterval(delay)
  }

  /// The check under way succeeded at `now`; the next is due `interval` later.
  ///
  /// - Returns: whether the error shown changed (it was failing).
  @discardableResult
  mutating func succeeded(at now: Date, interval: TimeInterval) -> Bool {
    let changed = error != nil
    isChecking = false
    waiting = 0
    failures = 0
    error = nil
    schedule(at: now, in: interval)
    return changed
  }

  /// The check under way failed at `now` with `message`.
  ///
  /// - Returns: the delay until the next attempt (backed off by `backoff`, honouring
  ///   `retryAfter`) and whether the error shown changed.
  mutating func failed(
    at now: Date, message: String, retryAfter: TimeInterval?, backoff: Backoff,
    random: Double = .random(in: 0...1)
  ) -> (delay: TimeInterval, errorChanged: Bool) {
    isChecking = false
    waiting = 0
    failures = Backoff.failureCount(after: failures)
    let delay = backoff.delay(failures: failures, retryAfter: retryAfter, random: random)
    schedule(at: now, in: delay)
    let shown = TerminalText.sanitize(message, maxLength: 200)
    defer { error = shown }
    return (delay, shown != error)
  }
}
