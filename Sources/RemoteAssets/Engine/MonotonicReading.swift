/// A reading of the monotonic clock (`ContinuousClock`) in a value of fixed layout: the time
/// since a reading taken once per process.
///
/// `ContinuousClock.Instant` is not frozen: the concurrency library is built with library
/// evolution, so its layout is known only at run time, and so is that of every value that
/// stores one. One in ``AssetRecord`` made the ~2 KB record such a value: each copy went
/// through the runtime's value witnesses, and each change through the record table allocated
/// its coroutine's frame in seven pieces with `malloc` (BENCHMARKS.md, "Records of fixed
/// layout"). `Duration` is frozen.
struct MonotonicReading: Sendable, Equatable, Comparable {
  /// The process's first reading, which every other is measured from.
  private static let origin = ContinuousClock.now

  /// The time since ``origin``.
  private var sinceOrigin: Duration

  /// The monotonic clock now.
  static var now: MonotonicReading { MonotonicReading(sinceOrigin: origin.duration(to: .now)) }

  /// The time from this reading to `later` (negative when `later` is earlier).
  func duration(to later: MonotonicReading) -> Duration { later.sinceOrigin - sinceOrigin }

  static func < (lhs: MonotonicReading, rhs: MonotonicReading) -> Bool {
    lhs.sinceOrigin < rhs.sinceOrigin
  }
}
