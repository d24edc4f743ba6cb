import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs child processes to completion from async tests.
///
/// Waiting suspends and never blocks a thread of the cooperative pool: tests run servers in
/// this process (`LoopbackOrigin`) that need those threads, and the pool has only as many as
/// the machine has cores.
public enum ProcessRunner {
  /// What a finished child printed and how it ended.
  public struct Result: Sendable {
    /// The exit status, or the signal number when a signal ended the child (9 after a timeout).
    public var status: Int32
    /// Everything written to stdout, as UTF-8 (invalid bytes replaced).
    public var stdout: String
    /// Everything written to stderr, as UTF-8 (invalid bytes replaced).
    public var stderr: String

    /// Creates a result.
    public init(status: Int32, stdout: String, stderr: String) {
      self.status = status
      self.stdout = stdout
      self.stderr = stderr
    }
  }

  /// Runs `executable` (a path) with `arguments`, stdin from /dev/null, and collects its
  /// output; a child still running after `timeout` seconds is killed (SIGKILL).
  ///
  /// - Parameters:
  ///   - cwd: the working folder (this process's when nil).
  ///   - environment: entries added to (or replacing) this process's environment.
  /// - Throws: The spawn error when the child cannot start.
  public static func run(
    executable: String, _ arguments: [String], cwd: URL? = nil,
    environment: [String: String] = [:], timeout: TimeInterval = 60
  ) async throws -> Result {
    try await run(
      makeProcess(executable: executable, arguments, cwd: cwd, environment: environment),
      timeout: timeout)
  }

  /// Runs the tool `name` from PATH (curl, sh, sha256sum) the same way.
  ///
  /// - Throws: The spawn error when `/usr/bin/env` cannot start; a missing tool exits 127.
  public static func runTool(
    _ name: String, _ arguments: [String], cwd: URL? = nil,
    environment: [String: String] = [:], timeout: TimeInterval = 30
  ) async throws -> Result {
    try await run(
      executable: "/usr/bin/env", [name] + arguments, cwd: cwd, environment: environment,
      timeout: timeout)
  }

  /// A configured, not yet started process: stdin from /dev/null, `environment` merged into
  /// this process's, and Swift's interactive backtracer off (a crashing child must not wait
  /// for a debugger).
  public static func makeProcess(
    executable: String, _ arguments: [String], cwd: URL? = nil,
    environment: [String: String] = [:]
  ) -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let cwd { process.currentDirectoryURL = cwd }
    var merged = ProcessInfo.processInfo.environment
    merged["SWIFT_BACKTRACE"] = "interactive=no"
    for (key, value) in environment { merged[key] = value }
    process.environment = merged
    process.standardInput = FileHandle.nullDevice
    return process
  }

  /// Starts `process` (configured, not started), collects stdout and stderr through pipes that
  /// are drained while it runs (a full pipe cannot stall the child), and waits for it.
  ///
  /// - Throws: The spawn error when the child cannot start.
  public static func run(_ process: Process, timeout: TimeInterval = 60) async throws -> Result {
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    // Read each pipe to its end on a thread of its own, from before the child starts, so a full
    // pipe never stalls it. (Readability handlers lost the last chunk now and then: a handler
    // still running when it was removed appended after the result was made.)
    async let stdout = readToEnd(out.fileHandleForReading)
    async let stderr = readToEnd(err.fileHandleForReading)
    let status: Int32
    do {
      status = try await waitForExit(process, timeout: timeout)
    } catch {
      // Never started: nobody else will close the write ends the readers wait on.
      try? out.fileHandleForWriting.close()
      try? err.fileHandleForWriting.close()
      _ = await (stdout, stderr)
      throw error
    }
    return Result(
      status: status, stdout: String(decoding: await stdout, as: UTF8.self),
      stderr: String(decoding: await stderr, as: UTF8.self))
  }

  /// Starts `process` and waits (suspending) for it to end; kills it after `timeout` seconds.
  private static func waitForExit(_ process: Process, timeout: TimeInterval) async throws -> Int32 {
    try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
        return
      }
      // SIGKILL, not SIGTERM: a child may inherit SIGTERM blocked or ignored from the test
      // runner, and a timed-out child must end.
      let pid = process.processIdentifier
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
        if process.isRunning { kill(pid, SIGKILL) }
      }
    }
  }

  /// Every byte until end of file, read on a thread of its own.
  ///
  /// Not `DispatchQueue.global()`: on Linux, Swift's cooperative pool *is* libdispatch's
  /// default-QoS root queue (there is no separate cooperative queue), as wide as the machine has
  /// cores. A read that blocks for a child's whole life there takes a thread from every task in
  /// the process; libdispatch adds threads back only about once a second, so a few children at
  /// once stalled the whole test run (CI timed out at 5400 s).
  static func readToEnd(_ handle: FileHandle) async -> Data {
    await OwnThread.run { handle.readDataToEndOfFile() }
  }
}
