import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// nginx from Debian, started on a free loopback port with a generated config, serving `www/`.
/// nginx answers conditional requests (strong ETags, 304) and ranges itself: a server nobody here wrote.
final class NginxServer {
  let root: URL
  let www: URL
  let port: Int
  private let process: Process

  var baseURL: String { "http://127.0.0.1:\(port)" }

  init() throws {
    guard let nginx = Tools.path("nginx") else {
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
    port = try Self.freePort()
    let r = root.path
    let conf = """
      daemon off;
      worker_processes 1;
      pid \(r)/nginx.pid;
      error_log \(r)/logs/error.log warn;
      events { worker_connections 64; }
      http {
          access_log \(r)/logs/access.log;
          client_body_temp_path \(r)/tmp/body;
          proxy_temp_path \(r)/tmp/proxy;
          fastcgi_temp_path \(r)/tmp/fastcgi;
          uwsgi_temp_path \(r)/tmp/uwsgi;
          scgi_temp_path \(r)/tmp/scgi;
          types { application/json json; text/plain txt; application/octet-stream bin; image/png png; }
          default_type application/octet-stream;
          server {
              listen 127.0.0.1:\(port);
              root \(www.path);
              location /slow/ { limit_rate 2m; }
          }
      }
      """
    let confURL = root.appendingPathComponent("nginx.conf")
    try Data(conf.utf8).write(to: confURL)
    process = Process()
    process.executableURL = URL(fileURLWithPath: nginx)
    process.arguments = ["-c", confURL.path, "-p", r]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    try Self.waitUntilListening(port: port, process: process, errorLog: "\(r)/logs/error.log")
  }

  /// Writes a file into the served folder (world-readable).
  func put(_ name: String, _ data: Data) throws {
    let url = www.appendingPathComponent(name)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    chmod(url.deletingLastPathComponent().path, 0o755)
    try data.write(to: url)
    chmod(url.path, 0o644)
  }

  /// Requests logged for a path (from the access log).
  func hits(_ path: String) -> [String] {
    let log =
      (try? String(contentsOf: root.appendingPathComponent("logs/access.log"), encoding: .utf8))
      ?? ""
    return log.split(separator: "\n").map(String.init).filter { $0.contains("GET \(path) ") }
  }

  func stop() {
    if process.isRunning {
      process.terminate()
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: root)
  }

  struct NginxError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
  }

  static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0
      }
    }
    guard ok else { throw NginxError("no free port") }
    return Int(UInt16(bigEndian: addr.sin_port))
  }

  /// Polls (bounded, 10 s) until the port accepts a connection: a condition, not a fixed sleep.
  static func waitUntilListening(port: Int, process: Process, errorLog: String) throws {
    for _ in 0..<200 {
      if !process.isRunning {
        let log = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
        throw NginxError("nginx exited: \(log)")
      }
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var addr = sockaddr_in()
      addr.sin_family = sa_family_t(AF_INET)
      addr.sin_addr.s_addr = inet_addr("127.0.0.1")
      addr.sin_port = UInt16(port).bigEndian
      let connected = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      close(fd)
      if connected { return }
      usleep(50_000)
    }
    throw NginxError("nginx did not start listening on \(port)")
  }
}
