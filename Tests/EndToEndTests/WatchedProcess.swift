import AssetWatchTestKit
import Foundation

/// A long-running `assetwatch` with stdout piped, read as it goes: the old name for a
/// ``RunningProcess`` of the binary (see the list in BinaryRunner.swift).
final class WatchedProcess: Sendable {
  private let child: RunningProcess

  /// A configured, not yet started process of the binary.
  static func makeProcess(_ arguments: [String], cwd: URL?, environment: [String: String])
    -> Process
  {
    AssetWatchBinary.makeProcess(arguments, cwd: cwd, environment: environment)
  }

  init(_ arguments: [String], cwd: URL, environment: [String: String] = [:]) throws {
    child = try RunningProcess(
      Self.makeProcess(arguments, cwd: cwd, environment: environment))
  }

  var output: String { child.output }

  /// Polls the output (bounded, 20 s) for a substring: a condition, not a fixed sleep.
  func waitForOutput(containing text: String, timeout: TimeInterval = 20) async -> Bool {
    await child.waitForOutput(containing: text, timeout: timeout)
  }

  /// Sends SIGINT and returns the exit status (bounded wait, polled without blocking a thread).
  func interrupt() async -> Int32 { await child.interrupt() }

  /// Sends SIGTERM without waiting.
  func stop() { child.terminate() }
}
