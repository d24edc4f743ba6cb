import AssetWatchTestKit
import Foundation

/// Finds the `tmux` executable and runs it as a child process without blocking a thread.
///
/// Async on purpose: the test process runs a `LoopbackOrigin` that needs the cooperative pool's
/// threads (two on this machine), so waiting for a child must suspend, never block.
enum TmuxCommandRunner {
  /// The `tmux` executable on PATH, or nil when it is not installed.
  static let executable: String? = ExternalTool.path("tmux")

  /// Whether the tmux tests run: always under `CI=true` (where a missing tmux must fail the
  /// suite, not skip it), elsewhere only when tmux is installed.
  static var isEnabled: Bool { ExternalTool.shouldRun("tmux") }

  /// What one tmux invocation printed and how it ended.
  struct Output {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// Runs `tmux arguments...`, bounded by `timeout` (then it is killed).
  ///
  /// - Throws: `TmuxError.notInstalled` without tmux; the spawn error if it cannot start.
  static func run(_ arguments: [String], timeout: TimeInterval = 10) async throws -> Output {
    guard let executable else { throw TmuxError.notInstalled }
    var environment = ProcessInfo.processInfo.environment
    // Inside a user's tmux, TMUX would point the client at their server's session context.
    environment["TMUX"] = nil
    environment["TMUX_PANE"] = nil
    // Output goes to files: reading a pipe to its end would wait on every process holding it.
    return try await withTemporaryDirectory(prefix: "aw-tmux-out") { folder in
      let outURL = folder.url("stdout")
      let errURL = folder.url("stderr")
      let ending = try await TmuxSpawn.run(
        executable, arguments, environment: environment, stdout: outURL, stderr: errURL,
        timeout: timeout)
      let stdout = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
      var stderr = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
      let status: Int32
      switch ending {
      case .exited(let code): status = code
      case .signaled(let signal): status = 128 + signal
      case .timedOut:
        status = -1
        stderr += "(killed after \(timeout) s)"
      }
      return Output(status: status, stdout: stdout, stderr: stderr)
    }
  }
}

/// Why a tmux step failed.
enum TmuxError: Error, CustomStringConvertible {
  case notInstalled
  case commandFailed(arguments: [String], status: Int32, stderr: String)
  case timedOut(waitingFor: String, screen: String)

  var description: String {
    switch self {
    case .notInstalled:
      "tmux is not installed (apt-get install tmux); CI=true requires it"
    case .commandFailed(let arguments, let status, let stderr):
      "tmux \(arguments.joined(separator: " ")) exited \(status): \(stderr)"
    case .timedOut(let what, let screen):
      "timed out waiting for \(what); the pane shows:\n\(screen)"
    }
  }
}
