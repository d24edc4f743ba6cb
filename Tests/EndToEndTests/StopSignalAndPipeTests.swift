import AssetWatchTestKit
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Ending as a person or a shell ends a program: Ctrl-\ on the dashboard, a hang-up of a plain
/// watch or a serve, a reader that closes the pipe (`| head -1`), and usage errors.
@Suite struct StopSignalAndPipeTests {
  // MARK: - Ctrl-\ (SIGQUIT) on the dashboard

  @Test(.enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
  func ctrlBackslashRestoresTheTerminalAndExits131() async throws {
    try await DashboardFixture.withShell { fixture, tmux in
      let command = fixture.watchCommand().map(TmuxSession.shellQuoted).joined(separator: " ")
      try await tmux.runInShell(
        "stty -g > stty.before; \(command); echo \"exit=$?\"; stty -g > stty.after")
      try await tmux.waitForTable()
      try await tmux.press("C-\\")
      try await tmux.waitFor("exit=131")
      #expect(!(try await tmux.alternateScreenIsOn()))
      let after = fixture.folder.url.appendingPathComponent("stty.after")
      try await tmux.waitUntil("stty -g written after the exit") {
        ((try? String(contentsOf: after, encoding: .utf8)) ?? "").hasSuffix("\n")
      }
      let before = try String(
        contentsOf: fixture.folder.url.appendingPathComponent("stty.before"), encoding: .utf8)
      #expect(try String(contentsOf: after, encoding: .utf8) == before, "terminal settings")
      let text = try await tmux.capture(history: true)
      #expect(!text.lowercased().contains("crashed"), "\(text)")
      #expect(!text.contains("Backtrace"), "\(text)")
    }
  }

  // MARK: - SIGHUP: the dashboard's hang-up (exit 129); serve's reload

  @Test func plainWatchShutsDownOnHangupWith129() async throws {
    try await DashboardFixture.withFixture { fixture in
      let child = try RunningProcess(
        AssetWatchBinary.makeProcess(
          ["watch", "--config", fixture.configName, "--plain"], cwd: fixture.folder.url))
      // A line from the printer: the signal watcher is listening by then.
      #expect(await child.waitForOutput(containing: "flags", timeout: 60), "\(child.output)")
      kill(child.processIdentifier, SIGHUP)
      let status = await child.exit()
      #expect(status == .exited(129), "\(child.output)")
    }
  }

  /// serve reloads on SIGHUP (ServeReloadTests) instead: it keeps serving, and SIGTERM still
  /// ends it cleanly.
  @Test func serveKeepsServingOnHangup() async throws {
    try await DashboardFixture.withFixture { fixture in
      let serve = try ServeProcess(folder: fixture.folder.url)
      let client = try await serve.connect()
      await client.close()
      serve.signal(SIGHUP)
      let deadline = Date().addingTimeInterval(60)
      while !serve.output.contains("configuration reloaded"), Date() < deadline {
        try await Task.sleep(for: .milliseconds(50))
      }
      #expect(serve.output.contains("configuration reloaded: no change"), "\(serve.output)")
      let again = try await serve.connect()
      await again.close()
      let status = await serve.stop(signal: SIGTERM)
      #expect(status == 0, "serve output:\n\(serve.output)")
      // A clean shutdown takes its control socket with it.
      #expect(!FileManager.default.fileExists(atPath: serve.socketPath), "\(serve.output)")
    }
  }

  // MARK: - A reader that went away: exit 141, no trap

  @Test func demoPlainIntoAClosedPipeExits141() async throws {
    try await withTemporaryDirectory { dir in
      let child = try RunningProcess(
        AssetWatchBinary.makeProcess(
          [
            "demo", "--no-signed", "--plain", "--cache-dir",
            dir.url.appendingPathComponent("cache").path,
          ], cwd: AssetWatchBinary.packageRoot),
        stdout: .closedPipe(stderrToo: false))
      let status = await child.exit()
      #expect(status == .exited(141), "stderr: \(child.output)")
      #expect(!child.output.contains("Fatal error"), "\(child.output)")
    }
  }

  @Test func serveLogJSONIntoAClosedPipeExits141() async throws {
    try await DashboardFixture.withFixture { fixture in
      // Both stdout and stderr into the closed pipe, as `serve --log-json 2>&1 | head -1` does
      // once head has its line.
      let child = try RunningProcess(
        AssetWatchBinary.makeProcess(
          ["serve", "--config", fixture.configName, "--log-json"], cwd: fixture.folder.url),
        stdout: .closedPipe(stderrToo: true))
      let status = await child.exit()
      #expect(status == .exited(141))
    }
  }

  // MARK: - --verbose with the dashboard

  @Test(.enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
  func verboseLinesWaitUntilTheDashboardCloses() async throws {
    try await DashboardFixture.withShell { fixture, tmux in
      let command = fixture.watchCommand(["--verbose"]).map(TmuxSession.shellQuoted)
        .joined(separator: " ")
      try await tmux.runInShell("\(command); echo \"exit=$?\"")
      // `broken` answers 503 in the load, which starts once the dashboard is up.
      let table = try await tmux.waitFor("broken failed on the dashboard") { screen in
        screen.lines.contains { $0.contains("broken") && $0.contains("FAILED") }
      }
      #expect(!table.text.contains("assetwatch :"), "a log line on the dashboard:\n\(table.text)")
      try await tmux.press("q")
      try await tmux.waitFor("exit=0")
      // The lines held back are on the main screen, above the shell's exit line.
      let text = try await tmux.capture(history: true)
      #expect(
        text.split(separator: "\n").contains {
          $0.contains("assetwatch :") && $0.contains("asset=broken")
        },
        "\(text)")
    }
  }

  // MARK: - Usage errors (exit 64)

  @Test(arguments: ["70000", "-1", "65536"])
  func demoRefusesAPortOutOfRange(_ port: String) async throws {
    let result = try await BinaryRunner.run(["demo", "--port=\(port)"], timeout: 20)
    #expect(result.status == 64, "\(result.stdout) \(result.stderr)")
    let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
    #expect(first.contains("--port \(port): not a port (1-65535"), "\(result.stderr)")
  }

  @Test func serveRefusesALogLevelThatIsNotOne() async throws {
    let result = try await BinaryRunner.run(
      ["serve", "--config", "none.json", "--log-level", "bogus"], timeout: 20)
    #expect(result.status == 64, "\(result.stdout) \(result.stderr)")
    #expect(result.stderr.contains("bogus"), "\(result.stderr)")
  }
}
