import Foundation

/// How lively the engine's event stream is: events per second recently and the last arrival.
public struct StreamHealth: Sendable, Equatable {
  /// The window the rate is averaged over, in seconds.
  public static let window: TimeInterval = 5
  /// Recent arrival times, oldest first: those within the last window, and possibly some older
  /// ones not dropped yet (a bounded list; see ``record(at:)``).
  public private(set) var arrivals: [Date] = []
  /// When the last event arrived, if any did.
  public private(set) var lastEventAt: Date?

  /// Where the events come from, for a dashboard attached to another process's engine.
  public enum Connection: Sendable, Equatable {
    /// An engine in this process (no connection to lose).
    case inProcess
    /// Connected to the engine's control socket.
    case connected
    /// The connection is lost (since the given time); the last known table stays on screen.
    case disconnected(since: Date)
  }

  /// The connection's state; ``Connection/inProcess`` unless the host reports otherwise.
  public var connection: Connection = .inProcess

  /// Creates a health record with no events seen.
  public init() {}

  /// Records an event arriving at `now`.
  ///
  /// Dropping expired arrivals shifts the whole list; under a storm of a thousand events a
  /// second that was a shift of thousands per event, so they are dropped once they are half the
  /// list (the rate counts only the window anyway).
  public mutating func record(at now: Date) {
    arrivals.append(now)
    lastEventAt = now
    let cutoff = now.addingTimeInterval(-Self.window)
    let expired = Self.firstInside(arrivals, after: cutoff)
    if expired * 2 >= arrivals.count { arrivals.removeFirst(expired) }
  }

  /// The index of the first arrival later than `cutoff` (a binary search: arrivals come in
  /// time order).
  private static func firstInside(_ arrivals: [Date], after cutoff: Date) -> Int {
    var low = 0
    var high = arrivals.count
    while low < high {
      let middle = (low + high) / 2
      if arrivals[middle] > cutoff { high = middle } else { low = middle + 1 }
    }
    return low
  }

  /// The rate the header shows: taken at each tick from ``eventsPerSecond(at:)``, and changed
  /// only when the rate moved by a tenth or more (at least 0.1 event a second) or fell to none,
  /// so a steady stream does not make the header flicker between `40.2` and `39.8`. Nil before
  /// the first tick (the header then shows the rate at the frame's time).
  public private(set) var shownRate: Double?

  /// Takes the rate at `now` into ``shownRate`` if it moved enough to be worth showing.
  mutating func smoothRate(at now: Date) {
    let rate = eventsPerSecond(at: now)
    guard let shown = shownRate else {
      shownRate = rate
      return
    }
    if rate == 0 || abs(rate - shown) >= max(0.1 * shown, 0.1) { shownRate = rate }
  }

  /// Forgets arrivals that fell out of the window before `now`, and smooths the shown rate.
  public mutating func prune(now: Date) {
    defer { smoothRate(at: now) }
    let cutoff = now.addingTimeInterval(-Self.window)
    if let keep = arrivals.firstIndex(where: { $0 > cutoff }) {
      arrivals.removeFirst(keep)
    } else {
      arrivals.removeAll()
    }
  }

  /// Events per second over the window ending at `now`.
  public func eventsPerSecond(at now: Date) -> Double {
    let cutoff = now.addingTimeInterval(-Self.window)
    let recent = arrivals.filter { $0 > cutoff && $0 <= now }.count
    return Double(recent) / Self.window
  }
}
