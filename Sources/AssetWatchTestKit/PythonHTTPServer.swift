import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Python's `http.server` (`python3 -m http.server`), started on a free loopback port serving
/// `www/`: HTTP/1.0 replies with `Last-Modified` only (no ETag, no compression), 304 to
/// `If-Modified-Since`. Its log (stderr, one line per request) gives the status, not the bytes.
///
/// Prefer ``withPythonHTTPServer(_:)``, which stops the server and removes its folder.
public final class PythonHTTPServer: Sendable {
  /// The server's folder: its log and `www/`.
  public let root: URL
  /// The folder it serves.
  public let www: URL
  /// The loopback port.
  public let port: Int
  private let process: Process

  /// `http://127.0.0.1:<port>`.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Starts the server and waits (bounded, 10 s) until it listens.
  ///
  /// - Throws: ``NginxServer/NginxError`` when python3 is missing, exits, or never listens.
  public init() throws {
    guard let python = ExternalTool.path("python3") else {
      throw NginxServer.NginxError("python3 is not installed (apt-get install -y python3)")
    }
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-pyhttp-\(UUID().uuidString)")
    www = root.appendingPathComponent("www")
    try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
    port = freeLoopbackPort()
    guard port != 0 else { throw NginxServer.NginxError("no free loopback port") }
    let log = root.appendingPathComponent("requests.log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [
      "-u", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", www.path,
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: log)
    try process.run()
    do {
      try NginxServer.waitUntilListening(port: port, process: process, errorLog: log.path)
    } catch {
      stop()
      throw error
    }
  }

  /// Writes a file into the served folder, dated `modified` when given.
  ///
  /// - Throws: The file system's error.
  public func put(_ name: String, _ data: Data, modified: Date? = nil) throws {
    try StaticFolder.put(name, data, in: www, modified: modified)
  }

  /// Every request logged so far (`"GET /a.json HTTP/1.1" 304 -`); bytes are not logged.
  public func requests() -> [ServedRequest] {
    let log =
      (try? String(contentsOf: root.appendingPathComponent("requests.log"), encoding: .utf8))
      ?? ""
    return log.split(separator: "\n").compactMap { line in
      guard let open = line.firstIndex(of: "\"") else { return nil }
      let rest = line[line.index(after: open)...]
      guard let close = rest.firstIndex(of: "\"") else { return nil }
      let request = rest[..<close].split(separator: " ")
      let after = rest[rest.index(after: close)...].split(separator: " ")
      guard request.count == 3, let status = after.first.flatMap({ Int($0) }) else { return nil }
      let path = request[1].prefix { $0 != "?" }
      return ServedRequest(
        method: String(request[0]), path: String(path), status: status, bodyBytes: nil)
    }
  }

  /// The requests of `path` once there are at least `count` (bounded wait).
  public func requests(_ path: String, atLeast count: Int) async -> [ServedRequest] {
    await ServedRequest.await(count, of: path) { requests() }
  }

  /// Stops the server and removes its folder.
  public func stop() {
    ProcessTree.kill(process)  // SIGTERM may be blocked in a child of the test runner
    try? FileManager.default.removeItem(at: root)
  }
}

/// Starts a ``PythonHTTPServer``, runs `body` with it, and stops it when `body` returns or
/// throws.
///
/// - Returns: What `body` returns.
/// - Throws: What starting the server or `body` throws.
public func withPythonHTTPServer<T>(_ body: (PythonHTTPServer) async throws -> T) async throws
  -> T
{
  let server = try PythonHTTPServer()
  defer { server.stop() }
  return try await body(server)
}
