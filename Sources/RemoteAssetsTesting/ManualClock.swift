import Foundation
import RemoteAssets
import Synchronization

/// A clock that only moves when told to; sleepers wake when ``advance(by:)`` passes their deadline.
///
/// ``advance(by:)`` with a positive amount is time passing (wall clock and elapsed time move
/// together); a negative amount, or ``stepWallClock(by:)``, is the wall clock stepped (an NTP
/// correction): the elapsed time (``uptime()``) stays where it is.
///
/// ```swift
/// let clock = ManualClock(now: Date(timeIntervalSince1970: 0))
/// clock.advance(by: 301)   // a 5-minute ttl is now over
/// ```
public final class ManualClock: EngineClock {
  private struct Sleeper {
    var id: UInt64
    var deadline: Date
    var continuation: CheckedContinuation<Void, any Error>
  }
  private struct State {
    var now: Date
    var sleepers: [Sleeper] = []
    var nextID: UInt64 = 0
    var uptime: TimeInterval = 0
  }
  private let state: Mutex<State>

  /// Creates a clock reading `now`.
  public init(now: Date) { state = Mutex(State(now: now)) }

  public func now() -> Date { state.withLock { $0.now } }

  /// The time elapsed: only a positive ``advance(by:)`` moves it.
  public func uptime() -> TimeInterval { state.withLock { $0.uptime } }

  /// Moves time forward and wakes every sleeper whose deadline has passed. A negative amount
  /// steps the wall clock back (elapsed time does not go back).
  public func advance(by seconds: TimeInterval) {
    move(wall: seconds, elapsed: max(0, seconds))
  }

  /// Steps the wall clock by `seconds` (forward or back) while no time elapses, as an NTP
  /// correction does; sleepers whose deadline the wall clock passed wake.
  public func stepWallClock(by seconds: TimeInterval) {
    move(wall: seconds, elapsed: 0)
  }

  private func move(wall seconds: TimeInterval, elapsed: TimeInterval) {
    let due = state.withLock { s -> [Sleeper] in
      s.uptime += elapsed
      s.now = s.now.addingTimeInterval(seconds)
      let now = s.now
      let due = s.sleepers.filter { $0.deadline <= now }
      s.sleepers.removeAll { $0.deadline <= now }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }

  /// The deadlines of the sleeps waiting now, soonest first (tests read how long a scheduler
  /// chose to sleep).
  public var pendingDeadlines: [Date] {
    state.withLock { $0.sleepers.map(\.deadline).sorted() }
  }

  public func sleep(for seconds: TimeInterval) async throws {
    let id = state.withLock { s -> UInt64 in
      s.nextID += 1
      return s.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let resumeNow = state.withLock { s -> Bool in
          if seconds <= 0 || Task.isCancelled { return true }
          s.sleepers.append(
            Sleeper(id: id, deadline: s.now.addingTimeInterval(seconds), continuation: continuation)
          )
          return false
        }
        if resumeNow {
          if Task.isCancelled {
            continuation.resume(throwing: CancellationError())
          } else {
            continuation.resume()
          }
        }
      }
    } onCancel: {
      let cancelled = state.withLock { s -> Sleeper? in
        guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return s.sleepers.remove(at: i)
      }
      cancelled?.continuation.resume(throwing: CancellationError())
    }
  }
}
