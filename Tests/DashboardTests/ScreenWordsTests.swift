import AssetModel
import Foundation
import TerminalCore
import Testing

@testable import Dashboard

/// The whole screen at the smallest, the usual and a large terminal (30x8, 80x24, 160x45),
/// recorded, and the words each must hold checked on their own (a re-recorded snapshot cannot
/// quietly drop them).
@Suite struct ScreenSizeSnapshotTests {
  static let sizes = [(30, 8), (80, 24), (160, 45)]

  private func screens(
    _ state: DashboardState, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
  ) -> [String: String] {
    var out: [String: String] = [:]
    for (width, height) in Self.sizes {
      let buffer = DashboardRenderer.render(state, width: width, height: height, now: Fixtures.now)
      SnapshotAssertion.check(
        buffer, named: "\(name)-\(width)x\(height)", sourceLocation: sourceLocation)
      out["\(width)x\(height)"] = ScreenText.characters(buffer).joined(separator: "\n")
    }
    return out
  }

  @Test func table() {
    let text = screens(Fixtures.loadedState(), "sized-table")
    #expect(text["30x8"]?.contains("terminal too small") == true)
    #expect(text["30x8"]?.contains("30x8, need 40x10") == true)
    #expect(text["80x24"]?.contains("feature-flags") == true)
    #expect(text["160x45"]?.contains("HTTP 503, retry in 47s") == true)
  }

  @Test func helpWithTheLegend() {
    var state = Fixtures.loadedState()
    Fixtures.press("?", &state)
    let text = screens(state, "sized-help")
    // 80x24 has no room for both: the help says how to see the legend.
    #expect(text["80x24"]?.contains("? again: what the marks and colours mean") == true)
    let large = text["160x45"] ?? ""
    for words in [
      "Marks and colours", "• bold", "the row changed in the last 3 s", "the selection",
      "FRESH", "STALE", "EXPIRED", "FAILED", "MISSING", "BUNDLED", "CHECKING ↓",
      "TARGET behind", "signed r3", "PAUSED 2m", "attached to", "disconnected",
    ] {
      #expect(large.contains(words), "160x45 help lacks \(words)")
    }
  }

  @Test func legendPage() {
    var state = Fixtures.loadedState()
    Fixtures.press("??", &state)
    #expect(state.overlay == .legend)
    let text = screens(state, "sized-legend")
    #expect(text["80x24"]?.contains("Marks and colours") == true)
    #expect(text["80x24"]?.contains("auto-refresh paused since; NEXT says paused") == true)
    Fixtures.press("x", &state)
    #expect(state.overlay == nil)
  }

  /// The detail pane takes what a short table leaves: no empty rows between the table and it.
  @Test func detailUsesTheHeight() {
    var state = Fixtures.loadedState()
    Fixtures.press([.enter], &state)
    let text = screens(state, "sized-detail")
    let lines = (text["160x45"] ?? "").components(separatedBy: "\n")
    let rule = lines.firstIndex { $0.hasPrefix("── feature-flags") }
    // Header, titles, one row per asset, then the detail's rule at once.
    #expect(rule == 2 + Fixtures.everyState.count)
  }

  @Test func demoFooterOffersTheNextRelease() {
    var options = Fixtures.options()
    options.demo = true
    let text = screens(Fixtures.loadedState(options: options), "sized-demo")
    #expect(text["80x24"]?.contains("n next release") == true)
    #expect(text["160x45"]?.contains("n next release") == true)
    // Not in `watch`.
    let watch = DashboardRenderer.render(
      Fixtures.loadedState(), width: 160, height: 45, now: Fixtures.now)
    #expect(!ScreenText.characters(watch).joined().contains("next release"))
  }

  @Test func resetDialogSaysUntilWhen() {
    var flags = Fixtures.flags
    flags.hasBundledCopy = true
    var state = Fixtures.loadedState([flags, Fixtures.banner, Fixtures.pricing])
    // feature-flags: cached, a bundled copy, next refresh in 18 s.
    Fixtures.press("b", &state)
    let text = screens(state, "sized-reset")
    let screen = (text["160x45"] ?? "").replacingOccurrences(of: "\n", with: " ")
      .replacingOccurrences(of: "│", with: " ")
    let squeezed = screen.split(separator: " ", omittingEmptySubsequences: true)
      .joined(separator: " ")
    #expect(
      squeezed.contains("now serves the bundled copy until the next refresh in 18s."),
      "\(squeezed)")
  }

  @Test func errorsReadOnce() {
    var catalog = Fixtures.catalog
    catalog.activity = .idle
    catalog.nextAttemptAt = Fixtures.later(4)
    catalog.consecutiveFailures = 1
    catalog.lastError = AssetErrorRecord(
      kind: .invalid, message: "invalid JSON: Unexpected end of file during JSON parse.",
      at: Fixtures.ago(2))
    var state = Fixtures.loadedState([Fixtures.flags, catalog])
    Fixtures.press([.down, .enter], &state)
    let text = screens(state, "sized-error")
    let large = text["160x45"] ?? ""
    #expect(large.contains("JSON parse, retry"))
    #expect(!large.contains("parse.,"))
    #expect(large.contains("Last error   invalid JSON: Unexpected end of file during JSON parse ("))
    #expect(!large.contains("invalid: invalid"))
  }
}

/// `terminal too small` fits every terminal it is shown on, whole, from 18 columns up.
@Suite struct TooSmallTests {
  @Test func theMessageFitsEveryWidthBelowTheMinimum() {
    let state = Fixtures.loadedState()
    for width in 18..<ScreenLayout.minimumWidth {
      for height in 2...12 {
        let buffer = DashboardRenderer.render(
          state, width: width, height: height, now: Fixtures.now)
        let text = ScreenText.characters(buffer).joined(separator: "\n")
        #expect(text.contains("terminal too small"), "\(width)x\(height)")
        #expect(text.contains("\(width)x\(height), need 40x10"), "\(width)x\(height)")
        #expect(!text.contains("…"), "\(width)x\(height)")
      }
    }
  }

  @Test func oneRowSaysItInOneLine() {
    #expect(TooSmallWidget.lines(width: 30, height: 1) == ["too small: 30x1, need 40x10"])
  }
}

/// Every key answers: the demo's `n`, and keys while an attached dashboard is disconnected.
@Suite struct KeyFeedbackTests {
  @Test func nPublishesTheNextReleaseInTheDemoOnly() {
    var options = Fixtures.options()
    options.demo = true
    var demo = Fixtures.loadedState(options: options)
    #expect(Fixtures.press("n", &demo) == [.nextDemoRelease])
    #expect(demo.notice?.text == "publishing the demo's next release")
    var watch = Fixtures.loadedState()
    #expect(Fixtures.press("n", &watch).isEmpty)
    #expect(watch.notice == nil)
  }

  @Test func keysWhileDisconnectedSayNotConnected() {
    for key in ["r", "R", "p", "b", "d", "u"] {
      var state = Fixtures.loadedState()
      _ = DashboardReducer.reduce(&state, .connection(.connected), now: Fixtures.ago(5))
      _ = DashboardReducer.reduce(
        &state, .connection(.disconnected(since: Fixtures.ago(2))), now: Fixtures.ago(2))
      let effects = Fixtures.press(key, &state)
      #expect(effects.isEmpty, "\(key)")
      #expect(state.overlay == nil, "\(key)")
      #expect(state.notice?.text.hasPrefix("not connected") == true, "\(key)")
      let footer =
        ScreenText.characters(
          DashboardRenderer.render(state, width: 80, height: 24, now: Fixtures.now)
        ).last ?? ""
      #expect(footer.contains("not connected"), "\(key): \(footer)")
    }
  }

  @Test func connectedKeysStillGoOut() {
    var state = Fixtures.loadedState()
    _ = DashboardReducer.reduce(&state, .connection(.connected), now: Fixtures.ago(5))
    #expect(Fixtures.press("r", &state) == [.command(.refresh(id: "feature-flags"))])
  }
}

/// The reset dialog says what will be served after `y`, and until when.
@Suite struct ResetImpactTests {
  private func impact(_ status: AssetStatus, paused: Bool = false) -> String {
    var info = Fixtures.info
    info.autoRefreshPaused = paused
    return ImpactText.describe(.resetToBundled, status, info: info, now: Fixtures.now)
  }

  @Test func withABundledCopyUntilTheNextRefresh() {
    var flags = Fixtures.flags
    flags.hasBundledCopy = true
    #expect(
      impact(flags).hasSuffix(
        "y: feature-flags now serves the bundled copy until the next refresh in 18s."))
  }

  @Test func withoutABundledCopyNothing() {
    var flags = Fixtures.flags
    flags.hasBundledCopy = false
    #expect(
      impact(flags).contains("now serves nothing: no bundled copy, until the next refresh in 18s"))
  }

  @Test func pausedForGood() {
    var flags = Fixtures.flags
    flags.hasBundledCopy = true
    #expect(
      impact(flags, paused: true).contains(
        "now serves the bundled copy for good: auto-refresh is paused"))
    var quiet = Fixtures.quiet
    quiet.hasBundledCopy = true
    #expect(impact(quiet).contains("for good: auto-refresh is paused"))
  }

  @Test func noScheduleMeansManualRefresh() {
    var flags = Fixtures.flags
    flags.hasBundledCopy = true
    flags.nextAttemptAt = nil
    #expect(impact(flags).contains("for good: it refreshes only when asked (r)"))
  }

  @Test func theDialogCountsDown() {
    var flags = Fixtures.flags
    flags.hasBundledCopy = true
    var state = Fixtures.loadedState([flags])
    Fixtures.press("b", &state)
    let later = DashboardRenderer.render(state, width: 120, height: 40, now: Fixtures.later(10))
    let text = ScreenText.characters(later).joined(separator: " ")
    #expect(text.contains("in 8s"), "\(text)")
  }
}

/// Formatting words: a full stop before a clause, a kind said once.
@Suite struct ErrorWordsTests {
  @Test func fullStopGoesBeforeAClause() {
    #expect(Formatting.withoutFullStop("JSON parse.") == "JSON parse")
    #expect(Formatting.withoutFullStop("wait...") == "wait...")
    #expect(Formatting.withoutFullStop("HTTP 503") == "HTTP 503")
  }

  @Test func kindSaidOnce() {
    #expect(Formatting.errorWords(kind: "invalid", message: "invalid JSON") == "invalid JSON")
    #expect(
      Formatting.errorWords(kind: "http_status", message: "HTTP 503") == "http_status: HTTP 503")
    #expect(
      Formatting.errorWords(kind: "timed_out", message: "timed out after 10s")
        == "timed out after 10s")
  }
}
