import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// Repeated events fold (issue 37): an event identical to the one before it (the same asset,
/// level and words) counts on that line instead of pushing the others off the pane.
@Suite struct EventFoldingTests {
  static func verified(_ secondsAgo: TimeInterval) -> EngineLogEntry {
    EngineLogEntry(
      at: Fixtures.ago(secondsAgo), assetID: nil, level: .info,
      message: "signed targets verified: 6 assets")
  }

  static func eventLines(_ state: DashboardState, width: Int = 120, height: Int = 40)
    -> [String]
  {
    let lines = ScreenText.characters(
      DashboardRenderer.render(state, width: width, height: height, now: Fixtures.now))
    guard let rule = lines.firstIndex(where: { $0.contains("events") }) else { return [] }
    return Array(lines[(rule + 1)...])
  }

  @Test func anEventIdenticalToTheOneBeforeCountsOnItsLine() {
    var state = Fixtures.loadedState([Fixtures.flags], withLog: false)
    let other = EngineLogEntry(
      at: Fixtures.ago(70), assetID: "feature-flags", level: .info, message: "updated to v43")
    Fixtures.send(.log(other), &state, at: other.at)
    for seconds in stride(from: 60, through: 5, by: -5) {
      Fixtures.send(
        .log(Self.verified(TimeInterval(seconds))), &state, at: Fixtures.ago(TimeInterval(seconds)))
    }
    #expect(state.log.lines.count == 2)
    #expect(state.log.lines.last?.count == 12)
    #expect(state.log.lines.last?.entry == Self.verified(60), "the line keeps its first time")
    #expect(state.log.lines.last?.lastAt == Fixtures.ago(5))
    let lines = Self.eventLines(state)
    #expect(
      lines.first?.contains(
        "20:40:07 engine       signed targets verified: 6 assets (x12, last 5s ago)") == true,
      "\(lines.prefix(3))")
    #expect(lines.dropFirst().first?.contains("updated to v43") == true, "still on the pane")
  }

  @Test func onlyTheSameAssetLevelAndWordsFold() {
    var log = EventLog()
    let entry = Self.verified(3)
    log.append(entry)
    log.append(EngineLogEntry(at: entry.at, assetID: "x", level: .info, message: entry.message))
    log.append(EngineLogEntry(at: entry.at, assetID: nil, level: .error, message: entry.message))
    log.append(EngineLogEntry(at: entry.at, assetID: nil, level: .info, message: "other"))
    log.append(entry)  // not the one before it
    #expect(log.lines.map(\.count) == [1, 1, 1, 1, 1])
    log.append(Self.verified(1))
    #expect(log.lines.map(\.count) == [1, 1, 1, 1, 2])
  }

  @Test func theCountStaysWholeWhenTheMessageIsCut() {
    var state = Fixtures.loadedState([Fixtures.flags], withLog: false)
    let long = EngineLogEntry(
      at: Fixtures.ago(9), assetID: "feature-flags", level: .warning,
      message: "HTTP 503 Service Unavailable; keeping the last good copy; retry in 47s, again")
    Fixtures.send(.log(long), &state, at: long.at)
    Fixtures.send(.log(long.with(at: Fixtures.ago(2))), &state, at: Fixtures.ago(2))
    let line = Self.eventLines(state, width: 60, height: 20).first ?? ""
    #expect(line.hasSuffix("(x2, last 2s ago)"), "\(line)")
    #expect(line.contains("…"), "\(line)")
  }

  @Test func eventsHeldBehindADialogFoldTheSame() {
    var live = Fixtures.loadedState([Fixtures.flags], withLog: false)
    var frozen = live
    Fixtures.press("b", &frozen)
    #expect(frozen.isFrozen)
    for seconds in [4.0, 3, 2] {
      Fixtures.send(.log(Self.verified(seconds)), &live, at: Fixtures.ago(seconds))
      Fixtures.send(.log(Self.verified(seconds)), &frozen, at: Fixtures.ago(seconds))
    }
    Fixtures.press([.escape], &frozen, at: Fixtures.later(ConfirmDialog.guardInterval + 0.001))
    #expect(frozen.log == live.log)
    #expect(live.log.lines.map(\.count) == [3])
  }
}

extension EngineLogEntry {
  /// The same entry at another time.
  fileprivate func with(at time: Date) -> EngineLogEntry {
    EngineLogEntry(at: time, assetID: assetID, level: level, message: message)
  }
}
