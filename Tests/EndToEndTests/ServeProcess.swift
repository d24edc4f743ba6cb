import Foundation
import RemoteAssets
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `assetwatch serve` running in the background on a fixture's config, its output collected.
final class ServeProcess: Sendable {
  private let process: Process
  private let collected = Mutex(Data())
  /// The control socket the serve process listens on.
  let socketPath: String

  /// Starts `assetwatch serve --config assets.json` in `folder` (the cache is `folder/cache`).
  ///
  /// - Throws: what `Process.run` throws.
  init(folder: URL, extra: [String] = []) throws {
    let process = WatchedProcess.makeProcess(
      ["serve", "--config", "assets.json"] + extra, cwd: folder, environment: [:])
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    self.process = process
    socketPath = folder.appendingPathComponent("cache/control.sock").path
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      self?.collected.withLock { $0.append(data) }
    }
    try process.run()
  }

  /// Everything the process wrote to stdout and stderr so far.
  var output: String { collected.withLock { String(decoding: $0, as: UTF8.self) } }

  /// Polls (bounded) until the control socket answers, and returns a connected client.
  ///
  /// - Throws: the last connection error at the deadline.
  func connect(timeout: TimeInterval = 60) async throws -> ControlClient {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      do {
        return try await ControlClient.connect(to: socketPath)
      } catch {
        guard Date() < deadline, process.isRunning else { throw error }
        try await Task.sleep(for: .milliseconds(100))
      }
    }
  }

  /// Polls (bounded) the engine's state over the socket until `condition` holds for a snapshot.
  ///
  /// - Throws: `ServeTimeout` at the deadline.
  func waitForState(
    _ description: String, timeout: TimeInterval = 60, _ condition: (EngineSnapshot) -> Bool
  ) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if let client = try? await connect(timeout: 5) {
        var snapshot: EngineSnapshot?
        for await event in client.events {
          if case .snapshot(let s) = event { snapshot = s }
          break
        }
        await client.close()
        if let snapshot, condition(snapshot) { return }
      }
      try await Task.sleep(for: .milliseconds(200))
    }
    throw ServeTimeout(waitingFor: description, output: output)
  }

  /// Sends `signal` and waits (bounded, polled) for the exit; returns the exit status.
  func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 30) async -> Int32? {
    guard process.isRunning else { return process.terminationStatus }
    kill(process.processIdentifier, signal)
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(50)) }
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      return nil
    }
    return process.terminationStatus
  }

  /// Sends `signal` without waiting (a reload's SIGHUP, say).
  func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

  /// Whether the process ended by `SIGKILL`-free exit with this status.
  var isRunning: Bool { process.isRunning }
}

/// A serve process did not reach a state in time.
struct ServeTimeout: Error, CustomStringConvertible {
  var waitingFor: String
  var output: String
  var description: String { "timed out waiting for \(waitingFor); serve output:\n\(output)" }
}
