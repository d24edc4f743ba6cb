import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// Cutting, formatting, and text from servers made harmless.
@Suite struct TextTests {
  @Test func truncateEndsWithAnEllipsisWithinTheWidth() {
    #expect(TextFit.truncate("feature-flags", to: 8, ellipsis: "…") == "feature…")
    #expect(TextFit.truncate("feature-flags", to: 8, ellipsis: "~") == "feature~")
    #expect(TextFit.truncate("short", to: 8, ellipsis: "…") == "short")
    // A wide character never straddles the limit.
    #expect(TextFit.truncate("設定設定", to: 6, ellipsis: "…") == "設定…")
    #expect(DisplayWidth.of(TextFit.truncate("設定設定", to: 4, ellipsis: "…")) <= 4)
  }

  @Test func padCountsColumnsNotCharacters() {
    let padded = TextFit.pad("設定", to: 6, ellipsis: "…")
    #expect(padded == "設定  ")
    #expect(DisplayWidth.of(padded) == 6)
    #expect(TextFit.padLeft("2 KiB", to: 7, ellipsis: "…") == "  2 KiB")
  }

  @Test func wrapBreaksAtSpaces() {
    #expect(
      TextFit.wrap("drop cached copy of model", to: 10) == ["drop", "cached", "copy of", "model"])
  }

  @Test func sizes() {
    #expect(Formatting.size(512) == "512 B")
    #expect(Formatting.size(2150) == "2.1 KiB")
    #expect(Formatting.size(14 * 1024) == "14 KiB")
    #expect(Formatting.size(50 * 1024 * 1024) == "50 MiB")
    #expect(Formatting.size(3 * 1024 * 1024 * 1024) == "3.0 GiB")
  }

  @Test func relativeTimes() {
    let now = Fixtures.now
    #expect(Formatting.ago(Fixtures.ago(12), now: now) == "12s ago")
    #expect(Formatting.ago(Fixtures.ago(65), now: now) == "1m ago")
    #expect(Formatting.ago(Fixtures.ago(7200), now: now) == "2h ago")
    #expect(Formatting.ago(nil, now: now) == "-")
    #expect(Formatting.until(Fixtures.later(18), now: now) == "18s")
    #expect(Formatting.until(Fixtures.ago(1), now: now) == "now")
    #expect(Formatting.clock(now, timeZone: Fixtures.utc) == "20:41:07")
    #expect(Formatting.clock(now, timeZone: TimeZone(identifier: "Asia/Tokyo")!) == "05:41:07")
  }

  @Test func escapeSequencesInAnETagRenderAsHarmlessText() {
    let hostile = [
      Fixtures.flags.with { $0.etag = "\"\u{1B}[31mred\"" },
      Fixtures.model.with {
        $0.etag = "\u{1B}]0;x\u{07}"
        $0.activity = .idle
      },
    ]
    var state = Fixtures.loadedState(hostile, withLog: false)
    let entry = EngineLogEntry(
      at: Fixtures.now, assetID: "model", level: .error, message: "bad \u{1B}[2J\u{9B}1m")
    _ = DashboardReducer.reduce(&state, .engine(.log(entry)), now: Fixtures.now)
    let buffer = DashboardRenderer.render(state, width: 120, height: 40, now: Fixtures.now)
    for cell in buffer.cells {
      #expect(
        !cell.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }
    let text = ScreenText.characters(buffer).joined(separator: "\n")
    #expect(text.contains("\"[31mred\""))
    #expect(text.contains("]0;x"))
  }

  @Test func wideIDPadsToItsColumn() {
    let wide = AssetStatus(id: "設定-ja", source: .cached, checkedAt: Fixtures.ago(1))
    let state = Fixtures.loadedState([wide, Fixtures.flags], withLog: false)
    let buffer = DashboardRenderer.render(state, width: 80, height: 24, now: Fixtures.now)
    let lines = ScreenText.characters(buffer)
    let wideRow = lines.first { $0.contains("設定-ja") }!
    let plainRow = lines.first { $0.contains("feature-flags") }!
    // STATE starts at the same column in both rows.
    let column = { (line: String) in
      DisplayWidth.of(String(line[..<line.range(of: "FRESH")!.lowerBound]))
    }
    #expect(column(wideRow) == column(plainRow))
  }
}

/// The header's clock and event rate, formatted by hand every second, read as the `Calendar`
/// and `String(format:)` read them.
@Suite struct HeaderTextAgreementTests {
  static func calendarClock(_ date: Date, _ zone: TimeZone) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let c = calendar.dateComponents([.hour, .minute, .second], from: date)
    return String(format: "%02d:%02d:%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
  }

  /// Every zone named here, over two years of moments 37 minutes and 13.7 seconds apart
  /// (daylight-saving changes in both directions included), and before the epoch.
  @Test(arguments: [
    "UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe",
  ])
  func theClockReadsAsTheCalendarReadsIt(zone: String) throws {
    let timeZone = try #require(TimeZone(identifier: zone))
    var moments: [Date] = []
    var t = 1_767_225_600.0  // 2026-01-01
    while t < 1_830_297_600 {
      moments.append(Date(timeIntervalSince1970: t))
      t += 2_233.7
    }
    moments += [-1.5, -86_400.25, 0, 59.999].map { Date(timeIntervalSince1970: $0) }
    for date in moments {
      #expect(Formatting.clock(date, timeZone: timeZone) == Self.calendarClock(date, timeZone))
    }
  }

  /// Rates at every thousandth below 12 a second, the ties of each tenth, and large ones.
  @Test func theEventRateReadsAsFormatRoundsIt() {
    var rates = (0..<12_000).map { Double($0) / 1000 }
    rates +=
      (0..<100).map { (Double($0) + 0.5) / 10 } + [
        0.35, 0.45, 9.949_999, 9.95, 412.5, 413.5, 1e9 + 0.5,
      ]
    for rate in rates {
      let printf = String(format: rate < 9.95 ? "%.1f ev/s" : "%.0f ev/s", rate)
      #expect(Formatting.eventRate(rate) == printf, "rate \(rate)")
    }
  }
}
