import Foundation
import Synchronization

/// A long-running `assetwatch` with stdout piped, read as it goes.
final class WatchedProcess: Sendable {
  private let process: Process
  private let collected = Mutex(Data())

  /// A configured, not yet started process of the binary.
  static func makeProcess(_ arguments: [String], cwd: URL?, environment: [String: String])
    -> Process
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: BinaryRunner.binary)
    process.arguments = arguments
    if let cwd { process.currentDirectoryURL = cwd }
    var env = ProcessInfo.processInfo.environment
    env["SWIFT_BACKTRACE"] = "interactive=no"
    for (k, v) in environment { env[k] = v }
    process.environment = env
    process.standardInput = FileHandle.nullDevice
    return process
  }

  init(_ arguments: [String], cwd: URL, environment: [String: String] = [:]) throws {
    let process = Self.makeProcess(arguments, cwd: cwd, environment: environment)
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    self.process = process
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      self?.collected.withLock { $0.append(data) }
    }
    try process.run()
  }

  var output: String { collected.withLock { String(decoding: $0, as: UTF8.self) } }

  /// Polls the output (bounded, 20 s) for a substring: a condition, not a fixed sleep.
  func waitForOutput(containing text: String, timeout: TimeInterval = 20) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if output.contains(text) { return true }
      try? await Task.sleep(for: .milliseconds(50))
    }
    return false
  }

  /// Sends SIGINT and returns the exit status (bounded wait, polled without blocking a thread).
  func interrupt() async -> Int32 {
    process.interrupt()
    for _ in 0..<200 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    return process.terminationStatus
  }

  func stop() {
    if process.isRunning { process.terminate() }
  }
}
