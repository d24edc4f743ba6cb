import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's Apache httpd 2.4 (`apache2`), started in the foreground on a free loopback port with
/// a generated config, serving `www/` with `mod_deflate` on for JSON and text: the server whose
/// compressed answers carry an ETag with `-gzip` appended that it never matches (Apache bug
/// 45023). Run as root it switches to `www-data`, so the folders are world-readable.
///
/// Prefer ``withApache(directives:_:)``, which stops the server and removes its folder.
public final class ApacheServer: Sendable {
  /// The server's folder: config, logs, pid file and `www/`.
  public let root: URL
  /// The folder Apache serves.
  public let www: URL
  /// The loopback port.
  public let port: Int
  private let process: Process

  /// `http://127.0.0.1:<port>`.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Writes a config and starts Apache, then waits (bounded, 10 s) until it listens.
  ///
  /// - Parameter directives: more lines for the config (a `<Directory>` block, say), given the
  ///   served folder's path.
  /// - Throws: ``NginxServer/NginxError`` when Apache is not installed, exits, or never listens.
  public init(directives: (_ www: String) -> String = { _ in "" }) throws {
    guard let apache = ExternalTool.path("apache2") else {
      throw NginxServer.NginxError("apache2 is not installed (apt-get install -y apache2)")
    }
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-apache-\(UUID().uuidString)")
    www = root.appendingPathComponent("www")
    for dir in [www, root.appendingPathComponent("logs"), root.appendingPathComponent("run")] {
      try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    // Its children run as www-data: the tree must be world-readable.
    chmod(root.path, 0o755)
    chmod(www.path, 0o755)
    port = freeLoopbackPort()
    guard port != 0 else { throw NginxServer.NginxError("no free loopback port") }
    let r = root.path
    let modules = ["mpm_event", "authz_core", "mime", "filter", "deflate", "headers"]
      .map { "LoadModule \($0)_module /usr/lib/apache2/modules/mod_\($0).so" }
      .joined(separator: "\n")
    let runsAsRoot = geteuid() == 0
    let conf = """
      ServerRoot /etc/apache2
      ServerName 127.0.0.1
      Listen 127.0.0.1:\(port)
      PidFile \(r)/run/httpd.pid
      DefaultRuntimeDir \(r)/run
      ErrorLog \(r)/logs/error.log
      \(modules)
      \(runsAsRoot ? "User www-data\nGroup www-data" : "")
      TypesConfig /etc/mime.types
      LogFormat "\(ServedRequest.logFormat(status: "%>s", bytes: "%B"))" served
      CustomLog \(r)/logs/access.log served
      DocumentRoot \(www.path)
      <Directory \(www.path)>
        Require all granted
      </Directory>
      AddOutputFilterByType DEFLATE application/json text/plain
      \(directives(www.path))
      """
    let confURL = root.appendingPathComponent("httpd.conf")
    try Data(conf.utf8).write(to: confURL)
    process = Process()
    process.executableURL = URL(fileURLWithPath: apache)
    process.arguments = ["-f", confURL.path, "-DFOREGROUND"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    do {
      try NginxServer.waitUntilListening(
        port: port, process: process, errorLog: "\(r)/logs/error.log")
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

  /// Every request in the access log.
  public func requests() -> [ServedRequest] {
    let log =
      (try? String(contentsOf: root.appendingPathComponent("logs/access.log"), encoding: .utf8))
      ?? ""
    return log.split(separator: "\n").compactMap { ServedRequest(line: String($0)) }
  }

  /// The requests of `path` once there are at least `count` (bounded wait).
  public func requests(_ path: String, atLeast count: Int) async -> [ServedRequest] {
    await ServedRequest.await(count, of: path) { requests() }
  }

  /// Stops Apache and removes its folder.
  public func stop() {
    ProcessTree.kill(process)  // SIGTERM may be blocked in a child of the test runner
    try? FileManager.default.removeItem(at: root)
  }
}

/// Starts an ``ApacheServer``, runs `body` with it, and stops it when `body` returns or throws.
///
/// - Returns: What `body` returns.
/// - Throws: What starting Apache or `body` throws.
public func withApache<T>(
  directives: (_ www: String) -> String = { _ in "" }, _ body: (ApacheServer) async throws -> T
) async throws -> T {
  let apache = try ApacheServer(directives: directives)
  defer { apache.stop() }
  return try await body(apache)
}
