import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// nginx from Debian, started on a free loopback port with a generated config, serving `www/`.
/// nginx answers conditional requests (strong ETags, 304) and ranges itself: a server nobody
/// here wrote. Files under `/slow/` are sent at 2 MiB/s.
///
/// Prefer ``withNginx(_:)``, which stops the server and removes its folder when the body ends,
/// also when the body throws.
public final class NginxServer: Sendable {
  /// The server's folder: config, logs, pid file and `www/`.
  public let root: URL
  /// The folder nginx serves.
  public let www: URL
  /// The loopback port nginx listens on.
  public let port: Int
  private let process: Process

  /// Whether it serves TLS.
  public let isTLS: Bool

  /// `http://127.0.0.1:<port>` (`https://` with TLS).
  public var baseURL: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }

  /// What nginx needs to serve TLS: a certificate and key, optionally a CA whose client
  /// certificates it requires (`ssl_verify_client on`), and whether it offers HTTP/2 over ALPN
  /// (`listen ... ssl http2`, the form nginx 1.22 takes; `http2 on;` is newer).
  public struct TLS: Sendable {
    public var certificate: String
    public var key: String
    public var clientCA: String?
    public var http2: Bool

    /// PEM paths for `ssl_certificate`, `ssl_certificate_key` and `ssl_client_certificate`.
    public init(certificate: String, key: String, clientCA: String? = nil, http2: Bool = false) {
      self.certificate = certificate
      self.key = key
      self.clientCA = clientCA
      self.http2 = http2
    }
  }

  /// Writes a config and starts nginx in the foreground, then waits (bounded, 10 s) until it
  /// accepts connections.
  ///
  /// - Parameter serverDirectives: more lines for the `server` block (`gzip on;`, a `location`).
  /// - Throws: ``NginxError`` when nginx is not installed, exits, or never listens.
  public init(tls: TLS? = nil, serverDirectives: String = "") throws {
    isTLS = tls != nil
    guard let nginx = ExternalTool.path("nginx") else {
      throw NginxError("nginx is not installed (apt-get install -y nginx-light)")
    }
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-nginx-\(UUID().uuidString)")
    www = root.appendingPathComponent("www")
    try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
    for dir in ["tmp", "logs"] {
      try FileManager.default.createDirectory(
        at: root.appendingPathComponent(dir), withIntermediateDirectories: true)
    }
    // Workers may run as an unprivileged user: make the tree world-readable.
    chmod(root.path, 0o755)
    chmod(www.path, 0o755)
    let r = root.path
    let www = self.www
    let root = self.root
    let started = try startOnFreeLoopbackPort { port in
      let conf = Self.configuration(
        root: r, www: www.path, port: port, tls: tls, serverDirectives: serverDirectives)
      let confURL = root.appendingPathComponent("nginx.conf")
      try Data(conf.utf8).write(to: confURL)
      let process = Process()
      process.executableURL = URL(fileURLWithPath: nginx)
      process.arguments = ["-c", confURL.path, "-p", r]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      return (process, "\(r)/logs/error.log")
    } cleanUp: {
      try? FileManager.default.removeItem(at: root)
    }
    port = started.port
    process = started.process
  }

  /// nginx's config: in the foreground, its files under `root`, serving `www` on `port`.
  static func configuration(
    root r: String, www: String, port: Int, tls: TLS?, serverDirectives: String
  ) -> String {
    """
    daemon off;
    worker_processes 1;
    pid \(r)/nginx.pid;
    error_log \(r)/logs/error.log warn;
    events { worker_connections 64; }
    http {
        log_format withconnection '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" ae="$http_accept_encoding" ce="$sent_http_content_encoding" proto=$server_protocol nth=$connection_requests connection=$connection';
        access_log \(r)/logs/access.log withconnection;
        client_body_temp_path \(r)/tmp/body;
        proxy_temp_path \(r)/tmp/proxy;
        fastcgi_temp_path \(r)/tmp/fastcgi;
        uwsgi_temp_path \(r)/tmp/uwsgi;
        scgi_temp_path \(r)/tmp/scgi;
        types { application/json json; text/plain txt; application/octet-stream bin; image/png png; }
        default_type application/octet-stream;
        server {
            listen 127.0.0.1:\(port)\(Self.listenOptions(tls));
            \(Self.tlsDirectives(tls))
            root \(www);
            location /slow/ { limit_rate 2m; }
            \(serverDirectives)
        }
    }
    """
  }

  /// Writes a file into the served folder (world-readable).
  ///
  /// - Throws: The file system's error.
  public func put(_ name: String, _ data: Data) throws {
    let url = www.appendingPathComponent(name)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    chmod(url.deletingLastPathComponent().path, 0o755)
    try data.write(to: url)
    chmod(url.path, 0o644)
  }

  /// The access log's lines for GET requests of `path`.
  /// The access-log lines of `path` once there are at least `count` (nginx writes a line after
  /// the response has gone out, so a client can see the answer before its line exists); what
  /// there is after `timeout` otherwise.
  public func hits(_ path: String, atLeast count: Int, timeout: Duration = .seconds(10)) async
    -> [String]
  {
    let deadline = ContinuousClock.now + timeout
    var lines = hits(path)
    while lines.count < count, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(10))
      lines = hits(path)
    }
    return lines
  }

  public func hits(_ path: String) -> [String] {
    let log =
      (try? String(contentsOf: root.appendingPathComponent("logs/access.log"), encoding: .utf8))
      ?? ""
    return log.split(separator: "\n").map(String.init).filter { $0.contains("GET \(path) ") }
  }

  /// The distinct TCP connections (nginx's connection serial numbers) that carried the GET
  /// requests whose path starts with `prefix`.
  public func connections(forPathsStartingWith prefix: String) -> Set<String> {
    let log =
      (try? String(contentsOf: root.appendingPathComponent("logs/access.log"), encoding: .utf8))
      ?? ""
    return Set(
      log.split(separator: "\n").filter { $0.contains("GET \(prefix)") }.compactMap { line in
        line.range(of: "connection=").map { String(line[$0.upperBound...]) }
      })
  }

  /// Stops nginx and removes its folder.
  public func stop() {
    if process.isRunning {
      process.terminate()
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: root)
  }

  /// Why nginx could not be started.
  public struct NginxError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// Creates an error saying `description`.
    public init(_ description: String) { self.description = description }
  }

  /// A free loopback port (kept for callers of the old name; see ``freeLoopbackPort()``).
  ///
  /// - Throws: ``NginxError`` when no port could be bound.
  public static func freePort() throws -> Int {
    let port = freeLoopbackPort()
    guard port != 0 else { throw NginxError("no free port") }
    return port
  }

  /// What follows the `listen` address: ` ssl`, ` ssl http2`, or nothing.
  static func listenOptions(_ tls: TLS?) -> String {
    guard let tls else { return "" }
    return tls.http2 ? " ssl http2" : " ssl"
  }

  /// The access log's lines for GET requests whose path starts with `prefix`.
  public func requestLines(forPathsStartingWith prefix: String) -> [String] {
    let log =
      (try? String(contentsOf: root.appendingPathComponent("logs/access.log"), encoding: .utf8))
      ?? ""
    return log.split(separator: "\n").map(String.init).filter { $0.contains("GET \(prefix)") }
  }

  /// The server block's TLS lines (none without TLS).
  static func tlsDirectives(_ tls: TLS?) -> String {
    guard let tls else { return "" }
    var lines = "ssl_certificate \(tls.certificate);\n        ssl_certificate_key \(tls.key);"
    if let ca = tls.clientCA {
      lines += "\n        ssl_client_certificate \(ca);\n        ssl_verify_client on;"
    }
    return lines
  }

  /// Polls (bounded, 10 s) until `process` (or a process it started) listens on the port: a
  /// condition, not a fixed sleep. A listener that belongs to another process does not count.
  ///
  /// - Throws: ``PortTaken`` when another process listens on the port and `process` exits or
  ///   never gets it; ``NginxError`` when `process` exits (with the tail of `errorLog`) or never
  ///   listens.
  public static func waitUntilListening(port: Int, process: Process, errorLog: String) throws {
    var takenByAnother = false
    for _ in 0..<200 {
      if !process.isRunning {
        if takenByAnother { throw PortTaken(port: port) }
        let log = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
        throw NginxError("\(process.executableURL?.lastPathComponent ?? "server") exited: \(log)")
      }
      if isListening(onLoopbackPort: port) {
        if LoopbackListener.isHeld(port: port, byTreeOf: process.processIdentifier) { return }
        takenByAnother = true
      }
      usleep(50_000)
    }
    if takenByAnother { throw PortTaken(port: port) }
    throw NginxError("nginx did not start listening on \(port)")
  }
}

/// Starts an ``NginxServer``, runs `body` with it, and stops it (folder removed) when `body`
/// returns or throws.
///
/// - Returns: What `body` returns.
/// - Throws: ``NginxServer/NginxError`` when nginx cannot start, or what `body` throws.
public func withNginx<T>(
  serverDirectives: String = "", _ body: (NginxServer) async throws -> T
) async throws -> T {
  let nginx = try NginxServer(serverDirectives: serverDirectives)
  defer { nginx.stop() }
  return try await body(nginx)
}
