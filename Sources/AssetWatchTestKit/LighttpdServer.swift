import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's lighttpd (`lighttpd`, with `lighttpd-mod-deflate`), started in the foreground on a
/// free loopback port, serving `www/` with gzip for JSON and text. Its ETags are numeric hashes
/// (`"2742373838-gzip"` when compressed) and it answers 304 to either validator. Two quirks a
/// test must allow for: it caches a file's stat for about a second (a change right after a
/// request may still be answered 304 for a moment), and it writes its access log lazily
/// (``requests(_:atLeast:)`` polls).
///
/// Prefer ``withLighttpd(_:)``, which stops the server and removes its folder.
public final class LighttpdServer: Sendable {
  /// The server's folder: config, logs and `www/`.
  public let root: URL
  /// The folder lighttpd serves.
  public let www: URL
  /// The loopback port.
  public let port: Int
  private let process: Process

  /// `http://127.0.0.1:<port>`.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Writes a config and starts lighttpd, then waits (bounded, 10 s) until it listens.
  ///
  /// - Throws: ``NginxServer/NginxError`` when lighttpd or its deflate module is not installed,
  ///   exits, or never listens.
  public init() throws {
    guard let lighttpd = ExternalTool.path("lighttpd") else {
      throw NginxServer.NginxError("lighttpd is not installed (apt-get install -y lighttpd)")
    }
    guard FileManager.default.fileExists(atPath: "/usr/lib/lighttpd/mod_deflate.so") else {
      throw NginxServer.NginxError(
        "lighttpd's mod_deflate is not installed (apt-get install -y lighttpd-mod-deflate)")
    }
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-lighttpd-\(UUID().uuidString)")
    www = root.appendingPathComponent("www")
    try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
    chmod(root.path, 0o755)
    chmod(www.path, 0o755)
    port = freeLoopbackPort()
    guard port != 0 else { throw NginxServer.NginxError("no free loopback port") }
    let r = root.path
    let conf = """
      server.document-root = "\(www.path)"
      server.bind = "127.0.0.1"
      server.port = \(port)
      server.modules = ("mod_deflate", "mod_accesslog")
      server.errorlog = "\(r)/error.log"
      accesslog.filename = "\(r)/access.log"
      accesslog.format = "\(ServedRequest.logFormat(status: "%s", bytes: "%b"))"
      mimetype.assign = (".json" => "application/json", ".txt" => "text/plain")
      deflate.mimetypes = ("application/json", "text/plain")
      deflate.allowed-encodings = ("gzip")
      """
    let confURL = root.appendingPathComponent("lighttpd.conf")
    try Data(conf.utf8).write(to: confURL)
    process = Process()
    process.executableURL = URL(fileURLWithPath: lighttpd)
    process.arguments = ["-D", "-f", confURL.path]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    do {
      try NginxServer.waitUntilListening(port: port, process: process, errorLog: "\(r)/error.log")
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

  /// Every request in the access log so far (lighttpd writes it lazily).
  public func requests() -> [ServedRequest] {
    let log =
      (try? String(contentsOf: root.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
    return log.split(separator: "\n").compactMap { ServedRequest(line: String($0)) }
  }

  /// The requests of `path` once there are at least `count` (bounded wait).
  public func requests(_ path: String, atLeast count: Int) async -> [ServedRequest] {
    await ServedRequest.await(count, of: path) { requests() }
  }

  /// Stops lighttpd and removes its folder.
  public func stop() {
    ProcessTree.kill(process)  // SIGTERM may be blocked in a child of the test runner
    try? FileManager.default.removeItem(at: root)
  }
}

/// Starts a ``LighttpdServer``, runs `body` with it, and stops it when `body` returns or throws.
///
/// - Returns: What `body` returns.
/// - Throws: What starting lighttpd or `body` throws.
public func withLighttpd<T>(_ body: (LighttpdServer) async throws -> T) async throws -> T {
  let server = try LighttpdServer()
  defer { server.stop() }
  return try await body(server)
}
