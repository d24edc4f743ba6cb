/// Decides when a changed frame may be drawn and how long to wait for keys meanwhile.
///
/// Caps drawing at 30 frames a second (what an ssh link and a human eye need) while keeping
/// the key wait short enough that the app's frame is polled about 20 times a second when idle.
/// Pure: the loop passes in the time, so tests drive it with made-up instants.
struct FramePacer {
  /// The shortest time between two draws: 30 in any second at most.
  var minimumInterval: Duration = .seconds(1) / 30
  /// How long to wait for a key when nothing is waiting to be drawn, in milliseconds.
  var idleWaitMilliseconds: Int32 = 50
  /// The longest wait while the application is quiet (see `TerminalApplication.isQuiet`).
  var quietWaitMilliseconds: Int32 = 250
  private var lastDraw: ContinuousClock.Instant?

  /// Creates a pacer with the 30 fps cap and 50 ms key wait.
  init() {}

  /// Whether a frame may be drawn at `now`.
  func mayDraw(at now: ContinuousClock.Instant) -> Bool {
    guard let lastDraw else { return true }
    return now - lastDraw >= minimumInterval
  }

  /// Records that a frame was drawn at `now`.
  mutating func didDraw(at now: ContinuousClock.Instant) {
    lastDraw = now
  }

  /// How long to wait for a key: until the next draw is allowed when a changed frame is
  /// waiting; otherwise the idle wait, or while the application is quiet the quiet wait cut at
  /// the next second of the wall clock (`millisecondsIntoSecond`), so a clock on screen turns
  /// on time. Never below 1 ms, so the loop cannot spin.
  func waitMilliseconds(
    framePending: Bool, at now: ContinuousClock.Instant, quiet: Bool = false,
    millisecondsIntoSecond: Int = 0
  ) -> Int32 {
    guard framePending, let lastDraw else {
      guard quiet else { return idleWaitMilliseconds }
      let toNextSecond = Int32(clamping: 1000 - min(max(millisecondsIntoSecond, 0), 999) + 1)
      return max(1, min(quietWaitMilliseconds, toNextSecond))
    }
    let remaining = minimumInterval - (now - lastDraw)
    let milliseconds =
      remaining.components.seconds * 1000
      + remaining.components.attoseconds / 1_000_000_000_000_000
    return Int32(clamping: max(1, min(Int64(idleWaitMilliseconds), milliseconds + 1)))
  }
}
