import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's lighttpd (`lighttpd`, with `lighttpd-mod-deflate`), started in the foreground on a
/// free loopback port, serving `www/` with gzip for JSON and text. Its ETags are numeric hashes
/// (`"2742373838-gzip"` when compressed) and it answers 304 to either validator. Its stat
/// cache is off here (`server.stat-cache-engine = "disable"`): with it, a file replaced in the
/// second after a request can be served with the old file's ETag and Last-Modified, so the next
/// check of the new bytes gets a 200, a race of the test's own making (seen once in CI). It
/// writes its access log lazily (``requests(_:atLeast:)`` polls).
///
/// Prefer ``withLighttpd(_:)``, which stops the server and removes its folder.
public final class LighttpdServer: LoopbackFolderServer {
  /// The started server: its folder (config, logs and `www/`), port and process.
  public let server: LoopbackServerProcess

  /// Writes a config and starts lighttpd, then waits (bounded, 10 s) until it listens.
  ///
  /// - Throws: ``NginxServer/NginxError`` when lighttpd or its deflate module is not installed,
  ///   exits, or never listens.
  public init() throws {
    server = try LoopbackServerProcess(
      tool: "lighttpd", install: "apt-get install -y lighttpd", name: "lighttpd"
    ) { root, www, port in
      guard FileManager.default.fileExists(atPath: "/usr/lib/lighttpd/mod_deflate.so") else {
        throw NginxServer.NginxError(
          "lighttpd's mod_deflate is not installed (apt-get install -y lighttpd-mod-deflate)")
      }
      let r = root.path
      let conf = """
        server.document-root = "\(www.path)"
        server.bind = "127.0.0.1"
        server.port = \(port)
        server.modules = ("mod_deflate", "mod_accesslog")
        server.errorlog = "\(r)/error.log"
        server.stat-cache-engine = "disable"
        accesslog.filename = "\(r)/access.log"
        accesslog.format = "\(ServedRequest.logFormat(status: "%s", bytes: "%b"))"
        mimetype.assign = (".json" => "application/json", ".txt" => "text/plain")
        deflate.mimetypes = ("application/json", "text/plain")
        deflate.allowed-encodings = ("gzip")
        """
      let confURL = root.appendingPathComponent("lighttpd.conf")
      try Data(conf.utf8).write(to: confURL)
      return .init(arguments: ["-D", "-f", confURL.path], errorLog: "error.log")
    }
  }

  /// Every request in the access log so far (lighttpd writes it lazily).
  public func requests() -> [ServedRequest] {
    server.log("access.log").split(separator: "\n").compactMap { ServedRequest(line: String($0)) }
  }
}

/// Starts a ``LighttpdServer``, runs `body` with it, and stops it when `body` returns or throws.
///
/// - Returns: What `body` returns.
/// - Throws: What starting lighttpd or `body` throws.
public func withLighttpd<T>(_ body: (LighttpdServer) async throws -> T) async throws -> T {
  try await withLoopbackServer(LighttpdServer.init, body)
}
