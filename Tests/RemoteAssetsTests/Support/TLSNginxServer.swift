import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// nginx serving `www/` over TLS on a free loopback port, with a given certificate and key, and
/// optionally requiring a client certificate signed by `clientCA` (`ssl_verify_client on`).
final class TLSNginxServer {
  let root: URL
  let www: URL
  let port: Int
  private let process: Process

  var baseURL: String { "https://127.0.0.1:\(port)" }

  init(certificate: String, key: String, clientCA: String? = nil) throws {
    guard let nginx = Tools.path("nginx") else {
      throw NginxServer.NginxError("nginx is not installed (apt-get install -y nginx-light)")
    }
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-nginx-tls-\(UUID().uuidString)")
    www = root.appendingPathComponent("www")
    try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
    for dir in ["tmp", "logs"] {
      try FileManager.default.createDirectory(
        at: root.appendingPathComponent(dir), withIntermediateDirectories: true)
    }
    chmod(root.path, 0o755)
    chmod(www.path, 0o755)
    port = try NginxServer.freePort()
    let r = root.path
    let verify =
      clientCA.map { "ssl_client_certificate \($0);\n            ssl_verify_client on;" } ?? ""
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
          types { application/json json; text/plain txt; }
          default_type application/octet-stream;
          server {
              listen 127.0.0.1:\(port) ssl;
              ssl_certificate \(certificate);
              ssl_certificate_key \(key);
              \(verify)
              root \(www.path);
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
    try NginxServer.waitUntilListening(
      port: port, process: process, errorLog: "\(r)/logs/error.log")
  }

  /// Writes a world-readable file into the served folder.
  func put(_ name: String, _ data: Data) throws {
    let url = www.appendingPathComponent(name)
    try data.write(to: url)
    chmod(url.path, 0o644)
  }

  /// Access-log lines for a path.
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
}
