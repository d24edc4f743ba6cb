import Foundation
import Synchronization

/// What the dashboard drew, for `scripts/bench.sh`: frames sent to the terminal (and the most in
/// any one second), engine events taken in, and how long each key took to reach the screen.
/// Kept only when `ASSETWATCH_FRAME_STATS` names a file, and written there when the dashboard
/// ends, one `name value` line each.
final class FrameStats: Sendable {
  private struct Counts {
    var started = Date()
    var draws: [Date] = []
    var events = 0
    var keyAt: Date?
    var keyLatencies: [TimeInterval] = []
  }
  private let counts = Mutex(Counts())

  /// Starts counting now.
  init() {}

  /// A frame reached the terminal at `now`; it shows the effect of any key pressed before.
  func didDraw(at now: Date) {
    counts.withLock { c in
      c.draws.append(now)
      if let key = c.keyAt {
        c.keyLatencies.append(now.timeIntervalSince(key))
        c.keyAt = nil
      }
    }
  }

  /// A key was handled at `now`.
  func keyHandled(at now: Date) {
    counts.withLock { c in
      if c.keyAt == nil { c.keyAt = now }
    }
  }

  /// `count` engine events were taken into the dashboard.
  func eventsTaken(_ count: Int) {
    counts.withLock { $0.events += count }
  }

  /// The figures as `name value` lines.
  func report(at now: Date = Date()) -> String {
    let c = counts.withLock { $0 }
    let seconds = max(0.001, now.timeIntervalSince(c.started))
    var busiest = 0
    var first = 0
    for (last, at) in c.draws.enumerated() {
      while at.timeIntervalSince(c.draws[first]) >= 1 { first += 1 }
      busiest = max(busiest, last - first + 1)
    }
    let latencies = c.keyLatencies.sorted().map { $0 * 1000 }
    let median = latencies.isEmpty ? 0 : latencies[latencies.count / 2]
    let lines = [
      ("seconds", String(format: "%.2f", seconds)),
      ("frames", "\(c.draws.count)"),
      ("frames_per_second", String(format: "%.1f", Double(c.draws.count) / seconds)),
      ("most_frames_in_one_second", "\(busiest)"),
      ("events", "\(c.events)"),
      ("events_per_second", String(format: "%.1f", Double(c.events) / seconds)),
      ("keys", "\(latencies.count)"),
      ("key_to_screen_ms_median", String(format: "%.1f", median)),
      ("key_to_screen_ms_max", String(format: "%.1f", latencies.last ?? 0)),
    ]
    return lines.map { "\($0.0) \($0.1)\n" }.joined()
  }

  /// Writes ``report(at:)`` to `path` (a failure is only said on standard error).
  func write(to path: String) {
    do {
      try Data(report().utf8).write(to: URL(fileURLWithPath: path))
    } catch {
      Console.printError("assetwatch: cannot write frame statistics to \(path): \(error)")
    }
  }
}
