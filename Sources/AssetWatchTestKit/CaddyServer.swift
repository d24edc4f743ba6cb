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
public final class CaddyServer: LoopbackFolderServer {
  /// The started server: its folder (Caddyfile, HOME, storage, log and `www/`), port and
  /// process.
  public let server: LoopbackServerProcess

  /// Writes a Caddyfile and starts Caddy, then waits (bounded, 10 s) until it listens.
  ///
  /// - Throws: ``NginxServer/NginxError`` when Caddy is not installed, exits, or never listens.
  public init() throws {
    server = try LoopbackServerProcess(
      tool: "caddy", install: "apt-get install -y caddy", name: "caddy", folders: ["home"]
    ) { root, www, port in
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
      let home = root.appendingPathComponent("home").path
      var environment = ProcessInfo.processInfo.environment
      environment["HOME"] = home
      environment["XDG_DATA_HOME"] = home
      environment["XDG_CONFIG_HOME"] = home
      return .init(
        arguments: ["run", "--config", confURL.path, "--adapter", "caddyfile"],
        environment: environment, stderr: "caddy.log", errorLog: "caddy.log")
    }
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
}

/// Starts a ``CaddyServer``, runs `body` with it, and stops it when `body` returns or throws.
///
/// - Returns: What `body` returns.
/// - Throws: What starting Caddy or `body` throws.
public func withCaddy<T>(_ body: (CaddyServer) async throws -> T) async throws -> T {
  try await withLoopbackServer(CaddyServer.init, body)
}
