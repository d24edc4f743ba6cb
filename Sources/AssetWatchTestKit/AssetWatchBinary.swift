import Foundation

/// The built `assetwatch` executable, run as a user would run it from a shell.
public enum AssetWatchBinary {
  /// The package root (three levels above this file: Sources/AssetWatchTestKit/<file>).
  public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The binary: `ASSETWATCH_BIN`, else `.build/debug/assetwatch` (scripts/test.sh builds it
  /// before the tests run).
  public static var path: String {
    if let path = ProcessInfo.processInfo.environment["ASSETWATCH_BIN"] { return path }
    return packageRoot.appendingPathComponent(".build/debug/assetwatch").path
  }

  /// Runs `assetwatch arguments...` to completion (see ``ProcessRunner/run(executable:_:cwd:environment:timeout:)``).
  ///
  /// - Throws: The spawn error when the binary cannot start (not built yet).
  public static func run(
    _ arguments: [String], cwd: URL? = nil, environment: [String: String] = [:],
    timeout: TimeInterval = 60
  ) async throws -> ProcessRunner.Result {
    try await ProcessRunner.run(
      executable: path, arguments, cwd: cwd, environment: environment, timeout: timeout)
  }

  /// A configured, not yet started process of the binary (see ``ProcessRunner/makeProcess``).
  public static func makeProcess(
    _ arguments: [String], cwd: URL? = nil, environment: [String: String] = [:]
  ) -> Process {
    ProcessRunner.makeProcess(executable: path, arguments, cwd: cwd, environment: environment)
  }

  /// Starts `assetwatch arguments...` as a ``RunningProcess``, runs `body`, and stops it when
  /// `body` returns or throws.
  ///
  /// - Returns: What `body` returns.
  /// - Throws: The spawn error, or what `body` throws.
  public static func withRunning<T>(
    _ arguments: [String], cwd: URL? = nil, environment: [String: String] = [:],
    _ body: (RunningProcess) async throws -> T
  ) async throws -> T {
    try await withRunningProcess(
      executable: path, arguments, cwd: cwd, environment: environment, body)
  }
}
