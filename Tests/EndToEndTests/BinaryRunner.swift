import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the built `assetwatch` binary, as a user would from a shell.
enum BinaryRunner {
  /// The package root (three levels above this file).
  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The binary: `ASSETWATCH_BIN`, else `.build/debug/assetwatch` (scripts/test.sh builds it first).
  static var binary: String {
    if let path = ProcessInfo.processInfo.environment["ASSETWATCH_BIN"] { return path }
    return packageRoot.appendingPathComponent(".build/debug/assetwatch").path
  }

  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// Runs to completion, bounded by `timeout` (then it is killed). Async, and never blocks a
  /// thread of the cooperative pool: tests run an origin in this process that needs those threads.
  static func run(
    _ arguments: [String], cwd: URL? = nil, environment: [String: String] = [:],
    timeout: TimeInterval = 60
  ) async throws -> Result {
    try await run(
      WatchedProcess.makeProcess(arguments, cwd: cwd, environment: environment), timeout: timeout)
  }

  /// Runs another tool (curl, tmux) from PATH the same way.
  static func runTool(_ name: String, _ arguments: [String], timeout: TimeInterval = 30)
    async throws -> Result
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [name] + arguments
    process.standardInput = FileHandle.nullDevice
    return try await run(process, timeout: timeout)
  }

  private static func run(_ process: Process, timeout: TimeInterval) async throws -> Result {
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let collected = OutputBuffers()
    out.fileHandleForReading.readabilityHandler = { collected.append(0, $0.availableData) }
    err.fileHandleForReading.readabilityHandler = { collected.append(1, $0.availableData) }
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
        return
      }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
        if process.isRunning { process.terminate() }
      }
    }
    out.fileHandleForReading.readabilityHandler = nil
    err.fileHandleForReading.readabilityHandler = nil
    collected.append(0, out.fileHandleForReading.readDataToEndOfFile())
    collected.append(1, err.fileHandleForReading.readDataToEndOfFile())
    return Result(status: status, stdout: collected.text(0), stderr: collected.text(1))
  }
}

/// Bytes read from a child's stdout and stderr, filled from pipe handlers.
final class OutputBuffers: Sendable {
  private let buffers = Mutex<[Data]>([Data(), Data()])
  func append(_ index: Int, _ data: Data) { buffers.withLock { $0[index].append(data) } }
  func text(_ index: Int) -> String {
    buffers.withLock { String(decoding: $0[index], as: UTF8.self) }
  }
}

/// A temporary folder for one test.
struct Scratch {
  let url: URL
  init() {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-e2e-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  @discardableResult
  func write(_ name: String, _ text: String) -> URL {
    let u = url.appendingPathComponent(name)
    try! FileManager.default.createDirectory(
      at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
    try! Data(text.utf8).write(to: u)
    return u
  }
  func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A loopback TCP port that was free a moment ago (bind to 0, read it, close).
func freeLoopbackPort() -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var addr = sockaddr_in()
  addr.sin_family = sa_family_t(AF_INET)
  addr.sin_addr.s_addr = inet_addr("127.0.0.1")
  var len = socklen_t(MemoryLayout<sockaddr_in>.size)
  _ = withUnsafeMutablePointer(to: &addr) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0
    }
  }
  return Int(UInt16(bigEndian: addr.sin_port))
}
