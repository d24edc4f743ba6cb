import AssetWatchTestKit
import Foundation

// Names from before the test kit (AssetWatchTestKit), kept as thin wrappers so test files written
// against them still build. They are not deprecated, but new tests use the kit's scoped helpers,
// whose cleanup cannot be skipped by a throwing `#require`:
//
//   Scratch() ... dir.remove()           ->  withTemporaryDirectory { dir in ... }
//   BinaryRunner.run / .binary           ->  AssetWatchBinary.run / .path
//   BinaryRunner.runTool                 ->  ProcessRunner.runTool
//   WatchedProcess(...) ... stop()       ->  AssetWatchBinary.withRunning([...]) { process in ... }
//   freeLoopbackPort()                   ->  the kit's own, same name

/// Runs the built `assetwatch` binary, as a user would from a shell (see ``AssetWatchBinary``).
enum BinaryRunner {
  /// The package root.
  static var packageRoot: URL { AssetWatchBinary.packageRoot }

  /// The binary: `ASSETWATCH_BIN`, else `.build/debug/assetwatch`.
  static var binary: String { AssetWatchBinary.path }

  typealias Result = ProcessRunner.Result

  /// Runs the binary to completion, bounded by `timeout` (then it is killed).
  static func run(
    _ arguments: [String], cwd: URL? = nil, environment: [String: String] = [:],
    timeout: TimeInterval = 60
  ) async throws -> Result {
    try await AssetWatchBinary.run(
      arguments, cwd: cwd, environment: environment, timeout: timeout)
  }

  /// Runs another tool (curl, tmux) from PATH the same way.
  static func runTool(_ name: String, _ arguments: [String], timeout: TimeInterval = 30)
    async throws -> Result
  {
    try await ProcessRunner.runTool(name, arguments, timeout: timeout)
  }
}

/// A temporary folder for one test, removed only by ``remove()`` (see ``TemporaryDirectory``).
struct Scratch {
  let directory: TemporaryDirectory
  init() {
    // A test cannot run without a temporary folder; the old helper trapped here too.
    directory = try! TemporaryDirectory(prefix: "aw-e2e")
  }
  var url: URL { directory.url }
  @discardableResult
  func write(_ name: String, _ text: String) -> URL { try! directory.file(name, text) }
  func remove() { directory.remove() }
}

/// See the kit's ``AssetWatchTestKit/freeLoopbackPort()``.
func freeLoopbackPort() -> Int { AssetWatchTestKit.freeLoopbackPort() }
