import Foundation

/// Pausing and resuming automatic refresh, decided on the engine's lifecycle value.
extension EngineLifecycle {
  /// What a pause or a resume changed: the line logged, and whether the scheduler must look at
  /// every schedule again (a resume).
  struct PauseChange: Sendable, Equatable {
    /// The line logged.
    var message: String
    /// Whether to wake the scheduler.
    var wakesScheduler: Bool
  }

  /// Pauses (`paused` true, at `now`) or resumes automatic refresh; nil when it already was so
  /// (nothing is published or logged then).
  mutating func setPaused(_ paused: Bool, at now: Date) -> PauseChange? {
    guard paused != self.paused else { return nil }
    pausedAt = paused ? now : nil
    return paused
      ? PauseChange(message: "automatic refresh paused", wakesScheduler: false)
      : PauseChange(message: "automatic refresh resumed", wakesScheduler: true)
  }
}
