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
public final class ApacheServer: LoopbackFolderServer {
  /// The started server: its folder (config, logs, pid file and `www/`), port and process.
  public let server: LoopbackServerProcess

  /// Writes a config and starts Apache, then waits (bounded, 10 s) until it listens.
  ///
  /// - Parameter directives: more lines for the config (a `<Directory>` block, say), given the
  ///   served folder's path.
  /// - Throws: ``NginxServer/NginxError`` when Apache is not installed, exits, or never listens.
  public init(directives: (_ www: String) -> String = { _ in "" }) throws {
    // Its children run as www-data: the tree must be world-readable.
    server = try LoopbackServerProcess(
      tool: "apache2", install: "apt-get install -y apache2", name: "apache",
      folders: ["logs", "run"]
    ) { root, www, port in
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
      return .init(arguments: ["-f", confURL.path, "-DFOREGROUND"], errorLog: "logs/error.log")
    }
  }

  /// Every request in the access log.
  public func requests() -> [ServedRequest] {
    server.log("logs/access.log").split(separator: "\n").compactMap {
      ServedRequest(line: String($0))
    }
  }
}

/// Starts an ``ApacheServer``, runs `body` with it, and stops it when `body` returns or throws.
///
/// - Returns: What `body` returns.
/// - Throws: What starting Apache or `body` throws.
public func withApache<T>(
  directives: (_ www: String) -> String = { _ in "" }, _ body: (ApacheServer) async throws -> T
) async throws -> T {
  try await withLoopbackServer({ try ApacheServer(directives: directives) }, body)
}
