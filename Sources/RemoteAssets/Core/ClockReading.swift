import Foundation

/// One look at the engine's clock, handed to a decision value with each event: the wall clock
/// (what is shown and persisted) and the time elapsed since an arbitrary origin (what deadlines
/// within one run are measured in).
///
/// A core never reads a clock itself. A wall clock may be stepped (an NTP correction, a VM
/// restored from a snapshot); `uptime` is not, so a deadline set as `uptime + d` ends after `d`
/// of elapsed time whatever the wall clock did meanwhile.
struct ClockReading: Sendable, Equatable {
  /// The wall clock.
  var wall: Date
  /// Seconds elapsed since an origin fixed for the process (``EngineClock/uptime()``).
  var uptime: TimeInterval

}

extension EngineClock {
  /// The wall clock and the elapsed time, read together.
  func reading() -> ClockReading {
    ClockReading(wall: now(), uptime: uptime())
  }
}
