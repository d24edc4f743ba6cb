import DemoOrigin
import Foundation
import Testing

/// Keys that make the engine work: refresh, and the destructive drop with its confirmation.
@Suite(.enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
struct DashboardActionTests {
  /// The confirm dialog ignores keys this long after it opens (key repeat must not answer it).
  static let confirmGuard = Duration.milliseconds(300)

  @Test func rRefreshesTheSelectedRowThroughDownloading() async throws {
    try await DashboardFixture.withDashboard { fixture, tmux in
      try await tmux.waitForTable(fresh: ["model"])
      let before = await fixture.origin.requestCount(path: "/model.bin")
      // New content, served slowly (128 KiB at 16 KiB/s: about 8 s), so the download is visible.
      await fixture.origin.setGeneratedResource(
        "/model.bin", content: GeneratedBytes(length: DashboardFixture.modelSize, seed: 2),
        bytesPerSecond: 16 << 10)
      try await tmux.press("j", "j")
      try await tmux.waitForSelection("model")
      try await tmux.press("r")
      try await tmux.waitFor("model CHECKING or DOWNLOADING") { screen in
        let row = screen.row("model") ?? ""
        return row.contains("DOWNLOADING") || row.contains("CHECKING")
      }
      #expect(await fixture.origin.requestCount(path: "/model.bin") > before)
      #expect(await fixture.origin.requestCount(path: "/flags.json") == 1, "only model refreshed")
    }
  }

  /// Every key answers: `r` on an asset that did not change says so in the event pane.
  @Test func rOnAnUnchangedAssetSaysUnchanged() async throws {
    try await DashboardFixture.withDashboard { fixture, tmux in
      try await tmux.waitForTable(fresh: ["flags"])
      try await tmux.waitForSelection("flags")
      try await tmux.press("r")
      try await tmux.waitFor("refresh: unchanged")
    }
  }

  @Test func dropNeedsYAndNeitherASecondDNorEnterConfirms() async throws {
    try await DashboardFixture.withDashboard { fixture, tmux in
      try await tmux.waitForTable()
      try await tmux.waitForSelection("flags")
      #expect(fixture.hasCacheEntry("flags"))

      for answer in ["d", "Enter"] {
        try await openDropDialog(tmux)
        try await tmux.press(answer)
        try await tmux.waitFor("the dialog closed by \(answer)") { !$0.text.contains("Drop cache") }
        #expect(fixture.hasCacheEntry("flags"), "\(answer) must answer No")
      }

      try await openDropDialog(tmux)
      try await tmux.press("y")
      try await tmux.waitUntil("cache/entries/flags.json removed") {
        !fixture.hasCacheEntry("flags")
      }
      try await tmux.waitFor("flags back on its bundled copy") {
        $0.row("flags")?.contains("BUNDLED") == true && !$0.text.contains("Drop cache")
      }
    }
  }

  @Test func readonlyHidesTheDestructiveKeysAndDOpensNoDialog() async throws {
    try await DashboardFixture.withDashboard(extra: ["--readonly"]) { _, tmux in
      let screen = try await tmux.waitForTable()
      let footer = try #require(screen.lines.last)
      #expect(footer.contains("r refresh") && footer.contains("q quit"), "footer: \(footer)")
      for hidden in ["b reset", "d drop", "u rollback"] {
        #expect(!footer.contains(hidden), "footer: \(footer)")
      }
      // Keys are handled in order: had `d` opened a dialog, it would swallow the `j`.
      try await tmux.press("d", "j")
      let after = try await tmux.waitForSelection("catalog")
      #expect(!after.text.contains("Drop cache"))
    }
  }

  /// Presses `d` on the selected row, waits for the dialog, then waits out its key guard, which
  /// started before the dialog could be seen.
  private func openDropDialog(_ tmux: TmuxSession) async throws {
    try await tmux.press("d")
    try await tmux.waitFor("the drop dialog") {
      $0.text.contains("Drop cache") && $0.text.contains("yes")
    }
    try await Task.sleep(for: Self.confirmGuard + .milliseconds(150))
  }
}
