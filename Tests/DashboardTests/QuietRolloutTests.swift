import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// What a quiet rollout costs the screen (issue 37): 200 assets revalidated every second with
/// nothing changing. Every frame is bytes on an ssh link, so between two ticks only the clock
/// may change, and a revalidation alone asks for no frame.
@Suite struct QuietRolloutTests {
  static let count = 200

  /// Asset `i` of the rollout, checked at `checkedAt`, next at one second later.
  static func asset(_ i: Int, checkedAt: Date, activity: AssetActivity = .idle) -> AssetStatus {
    AssetStatus(
      id: String(format: "a%03d", i), remote: "http://127.0.0.1:8080/a\(i).json", format: "json",
      source: .cached, version: "v1", etag: "\"e\(i)\"", size: 300, checkedAt: checkedAt,
      nextAttemptAt: checkedAt.addingTimeInterval(1), ttl: 300, activity: activity)
  }

  /// One second of the rollout from `start`: asset `i` starts its check at `start + 0.002 +
  /// i * 0.004` and gets its 304 one millisecond later (no check is in flight at the tick at
  /// `start + 0.9`: one in flight then would show CHECKING, a real change).
  static func second(from start: Date) -> [(Date, DashboardInput)] {
    (0..<count).flatMap { i -> [(Date, DashboardInput)] in
      let begin = start.addingTimeInterval(0.002 + Double(i) * 0.004)
      let end = begin.addingTimeInterval(0.001)
      return [
        (
          begin,
          .engine(
            .assetChanged(asset(i, checkedAt: begin.addingTimeInterval(-1), activity: .checking)))
        ),
        (end, .engine(.assetChanged(asset(i, checkedAt: end)))),
      ]
    }
  }

  @Test func betweenTicksOnlyTheClockChangesAndNoRevalidationAsksForAFrame() {
    let start = Fixtures.now
    let assets = (0..<Self.count).map { Self.asset($0, checkedAt: start.addingTimeInterval(-0.5)) }
    var state = Fixtures.loadedState(assets, withLog: false)
    var frames: [ScreenBuffer] = []
    for second in 0..<8 {
      let from = start.addingTimeInterval(Double(second))
      for (time, input) in Self.second(from: from) {
        #expect(QuietChange.isQuiet(input, over: state), "asks for a frame: \(input)")
        _ = DashboardReducer.reduce(&state, input, now: time)
      }
      let tick = from.addingTimeInterval(0.9)
      _ = DashboardReducer.reduce(&state, .tick, now: tick)
      frames.append(DashboardRenderer.render(state, width: 120, height: 40, now: tick))
    }
    // The first seconds fill the rate's window; after them, only the clock turns.
    for (before, after) in zip(frames.dropFirst(5), frames.dropFirst(6)) {
      let changed = (0..<40).filter { y in
        (0..<120).contains { x in before[x, y] != after[x, y] }
      }
      #expect(
        changed == [0],
        "rows that changed: \(changed)\n\(ScreenText.characters(after).prefix(8).joined(separator: "\n"))"
      )
      let header = ScreenText.characters(after)[0]
      #expect(header.contains("400 ev/s"), "\(header)")
    }
    #expect(state.changedAt.isEmpty, "a revalidation highlights no row")
  }

  @Test func aRevalidationIsQuietAndAChangeIsNot() {
    let old = Self.asset(1, checkedAt: Fixtures.ago(1))
    let checking = old.with { $0.activity = .checking }
    let revalidated = Self.asset(1, checkedAt: Fixtures.now).with {
      $0.history = [RefreshRecord(at: Fixtures.now, outcome: .notModified, detail: nil)]
    }
    #expect(QuietChange.isQuiet(from: old, to: checking))
    #expect(QuietChange.isQuiet(from: checking, to: revalidated))
    #expect(!QuietChange.highlights(from: old, to: revalidated))
    let updated = revalidated.with { $0.version = "v2" }
    #expect(!QuietChange.isQuiet(from: old, to: updated))
    #expect(QuietChange.highlights(from: old, to: updated))
    let failed = revalidated.with { $0.consecutiveFailures = 1 }
    #expect(!QuietChange.isQuiet(from: old, to: failed))
    let downloading = old.with { $0.activity = .downloading(Fixtures.downloadProgress) }
    #expect(!QuietChange.isQuiet(from: old, to: downloading))

    var state = Fixtures.loadedState([old], withLog: false)
    Fixtures.send(.assetChanged(revalidated), &state)
    #expect(!state.isRecentlyChanged(old.id, at: Fixtures.now))
    Fixtures.send(.assetChanged(updated), &state)
    #expect(state.isRecentlyChanged(old.id, at: Fixtures.now))
    #expect(!QuietChange.isQuiet(.engine(.log(Fixtures.logEntries[0])), over: state))
  }

  @Test func countdownsReadWholeSecondsNeverMilliseconds() {
    let soon = Self.asset(1, checkedAt: Fixtures.ago(0.2)).with {
      $0.nextAttemptAt = Fixtures.later(0.797)
    }
    let failing = Self.asset(2, checkedAt: Fixtures.ago(0.2)).with {
      $0.consecutiveFailures = 1
      $0.lastError = AssetErrorRecord(kind: .httpStatus, message: "HTTP 503", at: Fixtures.now)
      $0.nextAttemptAt = Fixtures.later(0.25)
    }
    let state = Fixtures.loadedState([soon, failing], withLog: false)
    let screen = ScreenText.characters(
      DashboardRenderer.render(state, width: 120, height: 40, now: Fixtures.now)
    ).joined(separator: "\n")
    #expect(!screen.contains("ms"), "\(screen)")
    #expect(screen.contains("retry in 1s"), "\(screen)")
    #expect(Formatting.duration(0.797) == "1s")
    #expect(Formatting.duration(59) == "59s")
    #expect(Formatting.duration(150) == "2m")
    #expect(Formatting.duration(3 * 3600 + 5) == "3h")
    #expect(Formatting.interval(0.25) == "auto 250ms", "a configured interval, as written")
  }

  @Test func theHeaderRateMovesOnlyWhenTheRateDoes() {
    var health = StreamHealth()
    var now = Fixtures.now
    // 40 events a second, give or take one.
    for second in 0..<12 {
      let perSecond = 40 + (second % 2 == 0 ? 1 : -1)
      for i in 0..<perSecond {
        health.record(at: now.addingTimeInterval(Double(i) / Double(perSecond)))
      }
      now = now.addingTimeInterval(1)
      health.prune(now: now)
    }
    let steady = health.shownRate
    #expect(steady != nil)
    for i in 0..<41 { health.record(at: now.addingTimeInterval(Double(i) / 41)) }
    health.prune(now: now.addingTimeInterval(1))
    #expect(health.shownRate == steady, "a wobble of one event is not shown")
    // Silence: the rate falls to nothing, and says so.
    health.prune(now: now.addingTimeInterval(10))
    #expect(health.shownRate == 0)
    #expect(Formatting.eventRate(0) == "0.0 ev/s")
    #expect(Formatting.eventRate(3.24) == "3.2 ev/s")
    #expect(Formatting.eventRate(412.4) == "412 ev/s")
  }
}
