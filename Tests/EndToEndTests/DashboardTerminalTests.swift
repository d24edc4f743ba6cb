import Foundation
import Testing

/// The dashboard as a terminal program: sizes, colours, and leaving the terminal as it found it.
@Suite(.enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
struct DashboardTerminalTests {
  @Test func resizingRelaysOutWithinThePane() async throws {
    try await DashboardFixture.withDashboard(width: 120, height: 30) { _, tmux in
      try await tmux.waitForTable()
      let wide = try await tmux.waitForFrame(width: 120, height: 30)
      #expect(wide.lines[1].contains("ETAG"), "every column fits in 120")
      // Columns drop by priority (ETAG first, PROGRESS last of all but ID and STATE).
      let expected = [
        (60, 20, ["PROGRESS"], ["VERSION", "ETAG"]), (80, 24, ["VERSION"], ["ETAG"]),
      ]
      for (width, height, shown, dropped) in expected {
        try await tmux.resize(width: width, height: height)
        let screen = try await tmux.waitForFrame(width: width, height: height)
        #expect(screen.widestLine <= width, "\(screen.text)")
        #expect(DashboardFixture.ids.allSatisfy { screen.row($0) != nil }, "\(screen.text)")
        let titles = screen.lines[1]
        #expect(shown.allSatisfy(titles.contains) && !dropped.contains(where: titles.contains))
      }
    }
  }

  @Test func aTooSmallPaneSaysSoAndRecoversWhenEnlarged() async throws {
    try await DashboardFixture.withDashboard(width: 30, height: 8) { _, tmux in
      let small = try await tmux.waitFor("terminal too small")
      #expect(small.widestLine <= 30)
      try await tmux.resize(width: 80, height: 24)
      try await tmux.waitForTable()
      try await tmux.waitForFrame(width: 80, height: 24)
    }
  }

  @Test func noColorDrawsWithoutColorCodes() async throws {
    try await DashboardFixture.withDashboard(environment: ["NO_COLOR": "1"]) { _, tmux in
      try await tmux.waitForTable()
      let screen = try await tmux.waitForSelection("flags")
      #expect(!screen.usesColor, "\(screen.raw.debugDescription)")
    }
  }

  @Test func withoutNoColorTheStatesAreColored() async throws {
    try await DashboardFixture.withDashboard { _, tmux in
      try await tmux.waitForTable()
      try await tmux.waitFor("colour SGR codes") { $0.usesColor }
    }
  }

  @Test func anIdleDashboardUsesLittleCPU() async throws {
    try await DashboardFixture.withDashboard { _, tmux in
      try await tmux.waitFor("every fetch settled") { screen in
        ["flags", "catalog", "model"].allSatisfy { screen.row($0)?.contains("FRESH") == true }
          && screen.row("broken")?.contains("FAILED") == true
      }
      let pid = try #require(TmuxProcessTable.program("assetwatch", at: try await tmux.panePID()))
      let before = try #require(TmuxProcessTable.cpuSeconds(pid))
      // A measurement window, not a synchronization: CPU time used over 3 s of idling.
      try await Task.sleep(for: .seconds(3))
      let used = try #require(TmuxProcessTable.cpuSeconds(pid)) - before
      // Rendering every loop turn (20 a second) cost a debug build about 0.8 s here; rendering
      // once a second and on events costs 0.03-0.16 s, depending on the machine's load.
      #expect(used < 0.4, "used \(used) s of CPU in 3 s while idle")
    }
  }

  @Test func quittingRestoresTheTerminalAndEnds() async throws {
    try await DashboardFixture.withShell { fixture, tmux in
      let pid = try await startDashboardFromShell(fixture, tmux)
      try await tmux.press("q")
      try await tmux.waitFor("exit=0")
      #expect(!TmuxProcessTable.isRunning(pid))
      try await expectRestored(tmux)
    }
  }

  @Test func sigtermRestoresTheTerminalAndExits143() async throws {
    try await DashboardFixture.withShell { fixture, tmux in
      let pid = try await startDashboardFromShell(fixture, tmux)
      #expect(kill(pid, SIGTERM) == 0)
      try await tmux.waitFor("exit=143")
      #expect(!TmuxProcessTable.isRunning(pid))
      try await expectRestored(tmux)
    }
  }

  @Test func dumbTerminalGetsPlainLines() async throws {
    try await DashboardFixture.withDashboard(term: "dumb") { _, tmux in
      // Lines scroll: look at the scrollback too.
      let screen = try await tmux.waitFor("plain lines for flags and broken", history: true) {
        screen in
        screen.text.contains("printing one line per event")
          && screen.lines.contains { $0.contains("flags") && $0.contains("FRESH") }
          && screen.lines.contains { $0.contains("broken") && $0.contains("HTTP 503") }
      }
      #expect(!screen.raw.contains("\u{1B}"), "no escape codes")
      #expect(!(try await tmux.alternateScreenIsOn()))
      #expect(!screen.text.contains("AssetWatch "), "no dashboard header")
    }
  }

  // MARK: - Helpers

  /// Runs the dashboard from the pane's shell (which prints its exit status after it), waits
  /// for its table, and returns its pid.
  private func startDashboardFromShell(_ fixture: DashboardFixture, _ tmux: TmuxSession)
    async throws -> pid_t
  {
    let command = fixture.watchCommand().map(TmuxSession.shellQuoted).joined(separator: " ")
    try await tmux.runInShell("\(command); echo \"exit=$?\"")
    try await tmux.waitForTable()
    #expect(try await tmux.alternateScreenIsOn())
    let shell = try await tmux.panePID()
    let children = TmuxProcessTable.children(of: shell)
    return try #require(children.first, "the shell's child")
  }

  /// The shell's terminal is back in cooked mode with echo and signals, on the main screen.
  private func expectRestored(_ tmux: TmuxSession) async throws {
    #expect(!(try await tmux.alternateScreenIsOn()))
    let settings = try await tmux.terminalSettings()
    for flag in ["icanon", "echo", "isig"] {
      #expect(settings.contains(flag), "stty -a lacks \(flag): \(settings.sorted())")
    }
  }
}
