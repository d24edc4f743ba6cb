import Foundation

/// One detached tmux session on a private server (`tmux -L <unique>`), driven through the CLI.
///
/// A private socket keeps the tests away from a user's own tmux server and lets tests run in
/// parallel. Every wait polls the pane with a bound: conditions, never a sleep-then-assert.
struct TmuxSession: Sendable {
  /// The private server's socket name.
  let socket: String
  /// The session (and target) name.
  let name: String
  /// Holds the server's config file.
  private let configFolder: URL

  /// How long a `waitFor` polls before it gives up: generous, for a loaded 2-core machine.
  static let defaultTimeout: TimeInterval = 30

  /// Starts a private server and a `width` x `height` session running `command` (an argv, quoted
  /// for the shell tmux hands it to) in `cwd`.
  ///
  /// TERM comes from the server's `default-terminal` (tmux overrides a `-e TERM=`), so `term`
  /// goes into the server's config; the status line is off so the pane is the whole window.
  /// - Throws: `TmuxError` when tmux is missing or refuses to start the session.
  static func start(
    _ command: [String], width: Int, height: Int, cwd: URL, term: String = "tmux-256color",
    environment: [String: String] = [:]
  ) async throws -> TmuxSession {
    let id = UUID().uuidString.prefix(8).lowercased()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aw-tmux-\(id)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let session = TmuxSession(socket: "aw-\(id)", name: "aw\(id)", configFolder: folder)
    let config = folder.appendingPathComponent("tmux.conf")
    try Data(session.serverConfig(term: term).utf8).write(to: config)
    var arguments = [
      "-f", config.path, "new-session", "-d", "-s", session.name, "-x", "\(width)", "-y",
      "\(height)", "-c", cwd.path,
    ]
    let base = [
      "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": term, "SWIFT_BACKTRACE": "interactive=no",
    ]
    for (key, value) in base.merging(environment, uniquingKeysWith: { $1 }).sorted(by: {
      $0.0 < $1.0
    }) {
      arguments += ["-e", "\(key)=\(value)"]
    }
    arguments.append(command.map(Self.shellQuoted).joined(separator: " "))
    try await session.tmux(arguments)
    return session
  }

  /// The private server's config: TERM, no status line, and a watchdog that stops the server
  /// (socket file and config folder included) once this test process is gone, so a test run that
  /// crashes leaves no dashboards running.
  private func serverConfig(term: String) -> String {
    let stop = [
      "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done",
      "rm -rf \(configFolder.path)",
      // Unlink the socket, then SIGTERM the server: a kill-server would end this job first.
      "x=$(tmux -L \(socket) display -p \"#{socket_path} #{pid}\")",
      "rm -f \"${x% *}\"",
      "kill \"${x##* }\"",
    ].joined(separator: "; ")
    return """
      set -g default-terminal "\(term)"
      set -g status off
      run-shell -b '\(stop)'

      """
  }

  /// `text` in single quotes for `sh`.
  static func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  // MARK: - Commands

  /// Runs `tmux -L <socket> arguments...` and returns its stdout.
  ///
  /// - Throws: `TmuxError.commandFailed` on a non-zero exit.
  @discardableResult
  func tmux(_ arguments: [String]) async throws -> String {
    let full = ["-L", socket] + arguments
    let output = try await TmuxCommandRunner.run(full)
    guard output.status == 0 else {
      throw TmuxError.commandFailed(arguments: full, status: output.status, stderr: output.stderr)
    }
    return output.stdout
  }

  /// Presses keys by tmux name (`j`, `Enter`, `Escape`, `C-c`), one after another.
  func press(_ keys: String...) async throws {
    try await tmux(["send-keys", "-t", name] + keys)
  }

  /// Appends everything the pane's program writes to its terminal from now on (the raw bytes,
  /// escapes included) to `file`, until ``stopPipingOutput()``.
  func pipeOutput(to file: URL) async throws {
    try await tmux(["pipe-pane", "-o", "-t", name, "cat >> " + Self.shellQuoted(file.path)])
  }

  /// Ends ``pipeOutput(to:)``.
  func stopPipingOutput() async throws {
    try await tmux(["pipe-pane", "-t", name])
  }

  /// Types `text` literally (no key-name lookup).
  func type(_ text: String) async throws {
    try await tmux(["send-keys", "-t", name, "-l", text])
  }

  /// The visible pane as text, one string per line; `escapes` keeps colours and attributes as
  /// SGR, `history` adds the lines scrolled off the top.
  func capture(escapes: Bool = false, history: Bool = false) async throws -> String {
    try await tmux(
      ["capture-pane", "-t", name, "-p"] + (escapes ? ["-e"] : []) + (history ? ["-S", "-"] : []))
  }

  /// The visible pane (and with `history` the scrollback) parsed into lines of styled characters.
  func screen(history: Bool = false) async throws -> TmuxScreen {
    TmuxScreen(capture: try await capture(escapes: true, history: history))
  }

  /// Resizes the window (and so the pane, the only one) to `width` x `height`.
  func resize(width: Int, height: Int) async throws {
    try await tmux(["resize-window", "-t", name, "-x", "\(width)", "-y", "\(height)"])
  }

  /// A tmux format expanded for the pane, e.g. `#{pane_pid}` or `#{alternate_on}`.
  func display(_ format: String) async throws -> String {
    try await tmux(["display-message", "-p", "-t", name, format])
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The pid of the process tmux started in the pane.
  func panePID() async throws -> pid_t {
    pid_t(try await display("#{pane_pid}")) ?? -1
  }

  /// Whether the pane shows the alternate screen (a full-screen program is running in it).
  func alternateScreenIsOn() async throws -> Bool {
    try await display("#{alternate_on}") == "1"
  }

  /// Stops the private server (and so every process in it) and removes its config.
  func kill() async {
    let path = try? await display("#{socket_path}")
    // kill-session first: a server with a pane still running was seen to ignore kill-server.
    _ = try? await TmuxCommandRunner.run(["-L", socket, "kill-session", "-t", name])
    _ = try? await TmuxCommandRunner.run(["-L", socket, "kill-server"])
    // The server leaves its socket file behind; it is ours alone.
    if let path, !path.isEmpty { try? FileManager.default.removeItem(atPath: path) }
    try? FileManager.default.removeItem(at: configFolder)
  }

  // MARK: - Waiting

  /// Polls the pane (with `history`, its scrollback too) until `condition` holds for its screen,
  /// and returns that screen.
  ///
  /// With `settled`, the screen must also be the same at the next poll: a capture can fall
  /// between two writes of one frame (tmux reads the program's output in pieces), and a frame
  /// half drawn can show the new header over the last frame's rows. Use it where the caller reads
  /// more of the screen than `condition` checks.
  ///
  /// - Throws: `TmuxError.timedOut` with the last screen after `timeout` seconds.
  @discardableResult
  func waitFor(
    _ description: String, history: Bool = false, settled: Bool = false,
    timeout: TimeInterval = defaultTimeout, _ condition: (TmuxScreen) throws -> Bool
  ) async throws -> TmuxScreen {
    let deadline = Date().addingTimeInterval(timeout)
    var last = TmuxScreen(capture: "")
    var held: String?
    while true {
      last = try await screen(history: history)
      if try condition(last) {
        if !settled || held == last.text { return last }
        held = last.text
      } else {
        held = nil
      }
      guard Date() < deadline else {
        throw TmuxError.timedOut(waitingFor: description, screen: last.text)
      }
      try await Task.sleep(for: .milliseconds(100))
    }
  }

  /// Polls the pane until its text contains `pattern`, and returns that screen.
  ///
  /// - Throws: `TmuxError.timedOut` with the last screen after `timeout` seconds.
  @discardableResult
  func waitFor(_ pattern: String, timeout: TimeInterval = defaultTimeout) async throws
    -> TmuxScreen
  {
    try await waitFor("\"\(pattern)\"", timeout: timeout) { $0.text.contains(pattern) }
  }

  /// Polls until `condition` holds for something other than the screen (a file, a process).
  ///
  /// - Throws: `TmuxError.timedOut` with the last screen after `timeout` seconds.
  func waitUntil(
    _ description: String, timeout: TimeInterval = defaultTimeout,
    _ condition: () async throws -> Bool
  ) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try await !condition() {
      guard Date() < deadline else {
        let screen = (try? await capture()) ?? "(no pane)"
        throw TmuxError.timedOut(waitingFor: description, screen: screen)
      }
      try await Task.sleep(for: .milliseconds(100))
    }
  }
}
