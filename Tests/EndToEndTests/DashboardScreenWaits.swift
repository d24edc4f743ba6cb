import Foundation

/// Waits for what the dashboard on a ``DashboardFixture`` shows.
extension TmuxSession {
  /// Waits until every fixture asset has a row and `flags` was fetched (FRESH), the state most
  /// tests start from.
  @discardableResult
  func waitForTable(fresh ids: [String] = ["flags"]) async throws -> TmuxScreen {
    try await waitFor("a row per asset, \(ids) FRESH") { screen in
      DashboardFixture.ids.allSatisfy { screen.row($0) != nil }
        && ids.allSatisfy { screen.row($0)?.contains("FRESH") == true }
    }
  }

  /// Waits until exactly `id`'s row is in reverse video (the selection), looking at the rows of
  /// `ids`.
  @discardableResult
  func waitForSelection(_ id: String, among ids: [String] = DashboardFixture.ids) async throws
    -> TmuxScreen
  {
    try await waitFor("\(id) selected (reverse video)") {
      $0.reversedRows(among: ids) == [id]
    }
  }

  /// Waits until the app drew a whole `width` x `height` frame: the header ends with the clock
  /// one column from the right edge, the column titles are on line 2 and the key hints on the
  /// last line. Right after a resize tmux only crops or pads the old frame, which fails this.
  @discardableResult
  func waitForFrame(width: Int, height: Int) async throws -> TmuxScreen {
    try await waitFor("a \(width)x\(height) frame") { screen in
      let lines = screen.lines
      guard lines.count == height, let header = lines.first, lines.count > 2 else { return false }
      let clock = header.suffix(8)
      let clockAtRightEdge =
        DisplayColumns.of(header) == width - 1
        && clock.range(of: #"^\d\d:\d\d:\d\d$"#, options: .regularExpression) != nil
      return header.hasPrefix(" AssetWatch") && clockAtRightEdge
        && lines[1].contains("ID") && lines[1].contains("STATE")
        && lines[height - 1].contains("quit")
    }
  }

  /// Types a shell command line into the pane's shell and presses Enter.
  func runInShell(_ commandLine: String) async throws {
    try await type(commandLine)
    try await press("Enter")
  }

  /// Runs `stty -a` in the pane's shell and returns its settings as words (`icanon`, `-echo`).
  func terminalSettings() async throws -> Set<String> {
    // The marker is computed by the shell, so the typed command line itself never matches it.
    try await runInShell("stty -a; echo stty-$((20+22))-done")
    let screen = try await waitFor("stty-42-done")
    let words = screen.lines.flatMap { $0.split(whereSeparator: { " ;".contains($0) }) }
    return Set(words.map(String.init))
  }
}
