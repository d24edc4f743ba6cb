import Foundation
import Testing

/// The dashboard in tmux against a real origin: rows, selection, details and the filter.
@Suite(.enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
struct DashboardNavigationTests {
  @Test func rowsAppearWithTheirStatesAndTheFooterListsTheKeys() async throws {
    try await DashboardFixture.withDashboard { _, tmux in
      let screen = try await tmux.waitFor("every fetch settled") { screen in
        ["flags", "catalog", "model"].allSatisfy { screen.row($0)?.contains("FRESH") == true }
          && screen.row("broken")?.contains("FAILED") == true
      }
      #expect(try await tmux.alternateScreenIsOn())
      #expect(screen.lines.first?.hasPrefix(" AssetWatch  assets.json") == true)
      #expect(screen.lines[1].hasPrefix(" ID ") && screen.lines[1].contains("STATE"))
      let footer = try #require(screen.lines.last)
      for hint in ["r refresh", "d drop", "b reset", "/ filter", "q quit"] {
        #expect(footer.contains(hint), "footer: \(footer)")
      }
      #expect(screen.text.contains("HTTP 503"), "the failure's reason is on screen")
    }
  }

  @Test func jAndKMoveTheSelectionAndEnterShowsItsDetails() async throws {
    try await DashboardFixture.withDashboard { _, tmux in
      try await tmux.waitForTable()
      try await tmux.waitForSelection("flags")
      try await tmux.press("j")
      try await tmux.waitForSelection("catalog")
      try await tmux.press("j", "j")
      try await tmux.waitForSelection("broken")
      try await tmux.press("k")
      try await tmux.waitForSelection("model")
      try await tmux.press("Enter")
      let detail = try await tmux.waitFor("model's detail pane") {
        $0.line(containing: "URL")?.text.contains("/model.bin") == true
      }
      let rule = try #require(detail.line(containing: "── model "))
      #expect(rule.index > detail.line(containing: "broken")?.index ?? .max, "pane under the table")
    }
  }

  @Test func pageDownMovesByTheVisibleRowsBeforeAnyResize() async throws {
    // No resize is sent: curses reports none at start, so the dashboard must know its size from
    // the first frame. A dashboard that did not would page by its default of 10 rows.
    try await DashboardFixture.withDashboard(extraAssets: 20) { fixture, tmux in
      let ids = fixture.allIDs
      try await tmux.waitForTable()
      let screen = try await tmux.waitForSelection("flags", among: ids)
      let visible = ids.filter { screen.row($0) != nil }.count
      try #require(visible < ids.count, "the table must scroll: \(screen.text)")
      try #require(visible != 10, "a page of 10 would hide the bug")
      try await tmux.press("NPage")
      try await tmux.waitForSelection(ids[visible], among: ids)
    }
  }

  @Test func slashFiltersRowsAndEscapeClearsTheFilter() async throws {
    try await DashboardFixture.withDashboard { _, tmux in
      try await tmux.waitForTable()
      try await tmux.press("/")
      try await tmux.type("cat")
      let filtered = try await tmux.waitFor("only catalog left") { screen in
        screen.row("catalog") != nil
          && ["flags", "model", "broken"].allSatisfy { screen.row($0) == nil }
      }
      #expect(filtered.text.contains("cat"), "the filter line shows what was typed")
      try await tmux.press("Escape")
      try await tmux.waitFor("every row back") { screen in
        DashboardFixture.ids.allSatisfy { screen.row($0) != nil }
      }
    }
  }
}
