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

  /// Idle, the dashboard writes to its terminal only what changes on screen (the ages and the
  /// event rate that count up each second), never a repaint: bytes written through the pty
  /// (tmux `pipe-pane`) over a window, against the cells that changed meanwhile. Its CPU use
  /// while idle is a benchmark row (`scripts/bench.sh idle`), not a test.
  @Test func anIdleDashboardWritesOnlyTheCellsThatChange() async throws {
    try await DashboardFixture.withFixture { fixture in
      // Only assets that succeed, checked hourly: nothing is retried or due in the window.
      let base = fixture.origin.baseURL
      fixture.folder.write(
        "idle.json",
        """
        { "appVersion": "1.0.0", "cacheDirectory": "cache",
          "defaults": { "refreshEvery": "1h", "ttl": "1h", "maxStale": "2h", "timeout": "20s" },
          "assets": [
            { "id": "flags", "remote": "\(base)/flags.json", "format": "json" },
            { "id": "catalog", "remote": "\(base)/catalog.json", "format": "json" } ] }
        """)
      let tmux = try await TmuxSession.start(
        [BinaryRunner.binary, "watch", "--config", "idle.json"], width: 100, height: 30,
        cwd: fixture.folder.url, environment: ["NO_COLOR": "1"])
      defer { Task { await tmux.kill() } }
      try await tmux.waitFor("both rows fresh") { screen in
        ["flags", "catalog"].allSatisfy { screen.row($0)?.contains("FRESH") == true }
      }
      let written = fixture.folder.url.appendingPathComponent("pane-output")
      let previousScreen = try await tmux.screen()
      try await tmux.pipeOutput(to: written)
      // An observation window, not a synchronization: the screen is polled through it and
      // every change counted, cell by cell.
      var previous = previousScreen
      var changes = 0
      var changedCells = 0
      let end = Date().addingTimeInterval(3)
      while Date() < end {
        try await Task.sleep(for: .milliseconds(100))
        let screen = try await tmux.screen()
        let cells = TmuxScreen.changedCells(from: previous, to: screen)
        if cells > 0 {
          changes += 1
          changedCells += cells
        }
        previous = screen
      }
      try await tmux.stopPipingOutput()
      let last = TmuxScreen.changedCells(from: previous, to: try await tmux.screen())
      if last > 0 {
        changes += 1
        changedCells += last
      }
      let bytes = (try? Data(contentsOf: written).count) ?? 0
      print("idle dashboard: \(bytes) bytes for \(changes) changes of \(changedCells) cells")
      // Per changed cell, its character and maybe a cursor move or an attribute; per frame, a
      // cursor parked again. A repaint of this 100x30 screen is several kilobytes.
      let allowance = changes == 0 ? 0 : 16 * changedCells + 48 * changes
      #expect(
        bytes <= allowance,
        "\(bytes) bytes written while idle for \(changes) changes of \(changedCells) cells")
      // The pipe sees the dashboard's output at all: a key that moves the selection is drawn.
      let control = fixture.folder.url.appendingPathComponent("pane-output-key")
      try await tmux.pipeOutput(to: control)
      try await tmux.press("j")
      try await tmux.waitUntil("the key's frame seen through the pipe") {
        ((try? Data(contentsOf: control).count) ?? 0) > 0
      }
      try await tmux.stopPipingOutput()
      await tmux.kill()
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
