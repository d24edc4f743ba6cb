import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A long-running child (a server, `assetwatch watch`) whose stdout and stderr are read as it
/// goes.
///
/// Prefer ``withRunningProcess(executable:_:cwd:environment:_:)``, which stops the child when
/// its body ends, also when the body throws.
public final class RunningProcess: Sendable {
  private let process: Process
  private let collected = Mutex(Data())

  /// Where the child's stdout goes.
  public enum Stdout: Sendable {
    /// Into the buffer ``output`` reads, with stderr.
    case collected
    /// A pipe whose read end is closed before the child starts (its first write gets EPIPE, as
    /// under `| head` once head has its lines); stderr too when `stderrToo`, else collected.
    case closedPipe(stderrToo: Bool)
  }

  /// How a child ended.
  public enum Exit: Sendable, Equatable {
    case exited(Int32)
    case signaled(Int32)
    /// Still running at the deadline (then killed).
    case stillRunning
  }

  /// Starts `process` (configured, not started; see ``ProcessRunner/makeProcess``) with stdout
  /// and stderr piped into one buffer (or stdout as `stdout` says).
  ///
  /// - Throws: The spawn error when the child cannot start.
  public init(_ process: Process, stdout: Stdout = .collected) throws {
    let pipe = Pipe()
    switch stdout {
    case .collected:
      process.standardOutput = pipe
      process.standardError = pipe
    case .closedPipe(let stderrToo):
      let closed = Pipe()
      try closed.fileHandleForReading.close()
      process.standardOutput = closed
      process.standardError = stderrToo ? closed : pipe
    }
    self.process = process
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      self?.collected.withLock { $0.append(data) }
    }
    try process.run()
  }

  /// Polls (bounded, never blocking a thread) for the child's own exit; kills it at the
  /// deadline. No signal is sent before: for a child told to stop by the test.
  public func exit(within timeout: TimeInterval = 60) async -> Exit {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(50)) }
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      return .stillRunning
    }
    return process.terminationReason == .exit
      ? .exited(process.terminationStatus) : .signaled(process.terminationStatus)
  }

  /// Starts `executable arguments...` (see ``ProcessRunner/makeProcess``).
  ///
  /// - Throws: The spawn error when the child cannot start.
  public convenience init(
    executable: String, _ arguments: [String], cwd: URL? = nil,
    environment: [String: String] = [:]
  ) throws {
    try self.init(
      ProcessRunner.makeProcess(
        executable: executable, arguments, cwd: cwd, environment: environment))
  }

  /// Everything the child printed so far (stdout and stderr interleaved), as UTF-8.
  public var output: String { collected.withLock { String(decoding: $0, as: UTF8.self) } }

  /// The child's process id.
  public var processIdentifier: Int32 { process.processIdentifier }

  /// Whether the child is still running.
  public var isRunning: Bool { process.isRunning }

  /// Polls the output (bounded by `timeout` seconds) for `text`: a condition, not a fixed sleep.
  ///
  /// - Returns: Whether `text` appeared in time.
  public func waitForOutput(containing text: String, timeout: TimeInterval = 20) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if output.contains(text) { return true }
      try? await Task.sleep(for: .milliseconds(50))
    }
    return output.contains(text)
  }

  /// Sends SIGINT and returns the exit status; a child still running after 10 s is terminated,
  /// then killed. The wait polls and never blocks a thread.
  public func interrupt() async -> Int32 {
    process.interrupt()
    return await waitForExit()
  }

  /// Sends SIGTERM (if still running) and waits for the exit, killing the child after a few
  /// seconds; the wait never blocks a thread.
  public func stop() async {
    if process.isRunning { process.terminate() }
    _ = await waitForExit(graceSeconds: 2)
  }

  /// Sends SIGTERM if the child is still running, without waiting.
  public func terminate() {
    if process.isRunning { process.terminate() }
  }

  /// Polls (never blocking a thread) up to 10 s for the exit, then sends SIGTERM and waits 2 s
  /// more, then SIGKILL: a child may inherit SIGINT and SIGTERM blocked from the test runner.
  private func waitForExit(graceSeconds: Int = 10) async -> Int32 {
    for _ in 0..<(graceSeconds * 20) where process.isRunning {
      try? await Task.sleep(for: .milliseconds(50))
    }
    if process.isRunning { process.terminate() }
    for _ in 0..<40 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    return process.terminationStatus
  }
}

/// Starts `executable arguments...` as a ``RunningProcess``, runs `body` with it, and stops the
/// child when `body` returns or throws.
///
/// - Returns: What `body` returns.
/// - Throws: The spawn error, or what `body` throws.
public func withRunningProcess<T>(
  executable: String, _ arguments: [String], cwd: URL? = nil,
  environment: [String: String] = [:], _ body: (RunningProcess) async throws -> T
) async throws -> T {
  let child = try RunningProcess(
    executable: executable, arguments, cwd: cwd, environment: environment)
  do {
    let result = try await body(child)
    await child.stop()
    return result
  } catch {
    await child.stop()
    throw error
  }
}
