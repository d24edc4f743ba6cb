import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's Caddy 2 (`caddy`), started in the foreground on a free loopback port (`admin off`,
/// `auto_https off`, HOME and storage in its own folder), serving `www/` with `encode gzip`.
/// Its ETags survive compression and both validators get 304. Its access log is JSON, one
/// object per request.
///
/// Prefer ``withCaddy(_:)``, which stops the server and removes its folder.
public final class CaddyServer: Sendable {
  /// The server's folder: Caddyfile, HOME, storage, log and `www/`.
  public let root: URL
  /// The folder Caddy serves.
  public let www: URL
  /// The loopback port.
  public let port: Int
  private let process: Process

  /// `http://127.0.0.1:<port>`.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Writes a Caddyfile and starts Caddy, then waits (bounded, 10 s) until it listens.
  ///
  /// - Throws: ``NginxServer/NginxError`` when Caddy is not installed, exits, or never listens.
  public init() throws {
    guard let caddy = ExternalTool.path("caddy") else {
      throw NginxServer.NginxError("caddy is not installed (apt-get install -y caddy)")
    }
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-caddy-\(UUID().uuidString)")
    www = root.appendingPathComponent("www")
    let home = root.appendingPathComponent("home")
    for dir in [www, home] {
      try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    chmod(root.path, 0o755)
    chmod(www.path, 0o755)
    port = freeLoopbackPort()
    guard port != 0 else { throw NginxServer.NginxError("no free loopback port") }
    let r = root.path
    let conf = """
      {
      \tadmin off
      \tauto_https off
      \tstorage file_system \(r)/storage
      }
      http://127.0.0.1:\(port) {
      \troot * \(www.path)
      \tencode gzip
      \tfile_server
      \tlog {
      \t\toutput file \(r)/access.log
      \t\tformat json
      \t}
      }

      """
    let confURL = root.appendingPathComponent("Caddyfile")
    try Data(conf.utf8).write(to: confURL)
    process = Process()
    process.executableURL = URL(fileURLWithPath: caddy)
    process.arguments = ["run", "--config", confURL.path, "--adapter", "caddyfile"]
    var environment = ProcessInfo.processInfo.environment
    environment["HOME"] = home.path
    environment["XDG_DATA_HOME"] = home.path
    environment["XDG_CONFIG_HOME"] = home.path
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    let errors = root.appendingPathComponent("caddy.log")
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    process.standardError = try FileHandle(forWritingTo: errors)
    try process.run()
    do {
      try NginxServer.waitUntilListening(port: port, process: process, errorLog: errors.path)
    } catch {
      stop()
      throw error
    }
  }

  /// Writes a file into the served folder (world-readable), dated `modified` when given.
  ///
  /// - Throws: The file system's error.
  public func put(_ name: String, _ data: Data, modified: Date? = nil) throws {
    try StaticFolder.put(name, data, in: www, modified: modified)
  }

  /// Every request in the access log so far.
  public func requests() -> [ServedRequest] {
    let log = (try? Data(contentsOf: root.appendingPathComponent("access.log"))) ?? Data()
    return log.split(separator: UInt8(ascii: "\n")).compactMap { line in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
        let request = object["request"] as? [String: Any],
        let method = request["method"] as? String, let uri = request["uri"] as? String,
        let status = object["status"] as? Int
      else { return nil }
      let headers = request["headers"] as? [String: [String]] ?? [:]
      return ServedRequest(
        method: method, path: String(uri.prefix { $0 != "?" }), status: status,
        bodyBytes: object["size"] as? Int, acceptEncoding: headers["Accept-Encoding"]?.first,
        ifNoneMatch: headers["If-None-Match"]?.first,
        ifModifiedSince: headers["If-Modified-Since"]?.first)
    }
  }

  /// The requests of `path` once there are at least `count` (bounded wait).
  public func requests(_ path: String, atLeast count: Int) async -> [ServedRequest] {
    await ServedRequest.await(count, of: path) { requests() }
  }

  /// Stops Caddy and removes its folder.
  public func stop() {
    ProcessTree.kill(process)  // SIGTERM may be blocked in a child of the test runner
    try? FileManager.default.removeItem(at: root)
  }
}

/// Starts a ``CaddyServer``, runs `body` with it, and stops it when `body` returns or throws.
///
/// - Returns: What `body` returns.
/// - Throws: What starting Caddy or `body` throws.
public func withCaddy<T>(_ body: (CaddyServer) async throws -> T) async throws -> T {
  let server = try CaddyServer()
  defer { server.stop() }
  return try await body(server)
}
