import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What the test-server launchers (``ApacheServer``, ``LighttpdServer``, ``CaddyServer``,
/// ``PythonHTTPServer``) share: a folder of their own with `www/` in it, a free loopback port,
/// the server's process started on it and waited for (bounded, 10 s), and stopping its process
/// tree. Each launcher only writes its config and command line, and reads its own log format.
public struct LoopbackServerProcess: Sendable {
  /// How to start the server, once its folder and port are known.
  struct Launch {
    /// The server's command line (after the executable).
    var arguments: [String]
    /// The environment, when not the test runner's own.
    var environment: [String: String]? = nil
    /// A file in the server's folder that takes its stderr (else stderr is discarded).
    var stderr: String? = nil
    /// The file in the server's folder whose tail explains a failed start.
    var errorLog: String
  }

  /// The server's folder: config, logs and `www/`.
  let root: URL
  /// The folder served.
  let www: URL
  /// The loopback port.
  let port: Int
  private let process: Process

  /// Finds `tool`, makes the folder (`aw-<name>-<uuid>`, with `www/` and `folders` in it), picks
  /// a free loopback port, lets `launch` write the config, starts the server and waits until it
  /// listens; a server that exits or never listens is stopped (and a folder left unused removed).
  ///
  /// - Parameters:
  ///   - tool: The executable looked up with ``ExternalTool/path(_:)`` (under CI=true a missing
  ///     one fails the test).
  ///   - install: How to install it, for the error.
  ///   - name: The folder's name part.
  ///   - folders: More folders to make in the server's folder.
  ///   - worldReadable: Whether the folder and `www/` are made world-readable (for servers whose
  ///     workers switch user).
  /// - Throws: ``NginxServer/NginxError`` when the tool is missing, the server exits, or never
  ///   listens; what `launch` throws.
  init(
    tool: String, install: String, name: String, folders: [String] = [],
    worldReadable: Bool = true,
    launch: (_ root: URL, _ www: URL, _ port: Int) throws -> Launch
  ) throws {
    guard let executable = ExternalTool.path(tool) else {
      throw NginxServer.NginxError("\(tool) is not installed (\(install))")
    }
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-\(name)-\(UUID().uuidString)")
    www = root.appendingPathComponent("www")
    let root = self.root
    for dir in [www] + folders.map({ root.appendingPathComponent($0) }) {
      try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    if worldReadable {
      chmod(root.path, 0o755)
      chmod(www.path, 0o755)
    }
    let www = self.www
    let started = try startOnFreeLoopbackPort { port in
      let how = try launch(root, www, port)
      let process = Process()
      process.executableURL = URL(fileURLWithPath: executable)
      process.arguments = how.arguments
      if let environment = how.environment { process.environment = environment }
      process.standardOutput = FileHandle.nullDevice
      if let stderr = how.stderr {
        let log = root.appendingPathComponent(stderr)
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
      } else {
        process.standardError = FileHandle.nullDevice
      }
      try process.run()
      return (process, root.appendingPathComponent(how.errorLog).path)
    } cleanUp: {
      try? FileManager.default.removeItem(at: root)
    }
    port = started.port
    process = started.process
  }

  /// The text of a file in the server's folder (empty when it is not there yet).
  func log(_ name: String) -> String {
    (try? String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)) ?? ""
  }

  /// Stops the server's process tree and removes its folder.
  func stop() {
    ProcessTree.kill(process)  // SIGTERM may be blocked in a child of the test runner
    try? FileManager.default.removeItem(at: root)
  }
}

/// A test server started with ``LoopbackServerProcess``, serving a folder on a loopback port
/// and logging the requests it served.
public protocol LoopbackFolderServer: Sendable {
  /// The started server.
  var server: LoopbackServerProcess { get }
  /// Every request in the server's log so far.
  func requests() -> [ServedRequest]
}

extension LoopbackFolderServer {
  /// The server's folder: config, logs and `www/`.
  public var root: URL { server.root }
  /// The folder served.
  public var www: URL { server.www }
  /// The loopback port.
  public var port: Int { server.port }
  /// `http://127.0.0.1:<port>`.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Writes a file into the served folder (world-readable), dated `modified` when given.
  ///
  /// - Throws: The file system's error.
  public func put(_ name: String, _ data: Data, modified: Date? = nil) throws {
    try StaticFolder.put(name, data, in: www, modified: modified)
  }

  /// The requests of `path` once there are at least `count` (bounded wait).
  public func requests(_ path: String, atLeast count: Int) async -> [ServedRequest] {
    await ServedRequest.await(count, of: path) { requests() }
  }

  /// Stops the server and removes its folder.
  public func stop() {
    server.stop()
  }
}

/// Starts a server with `start`, runs `body` with it, and stops it when `body` returns or
/// throws.
///
/// - Returns: What `body` returns.
/// - Throws: What starting the server or `body` throws.
func withLoopbackServer<Server: LoopbackFolderServer, T>(
  _ start: () throws -> Server, _ body: (Server) async throws -> T
) async throws -> T {
  let server = try start()
  defer { server.stop() }
  return try await body(server)
}
