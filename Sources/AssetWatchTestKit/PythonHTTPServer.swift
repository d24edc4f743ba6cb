import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Python's `http.server` (`python3 -m http.server`), started on a free loopback port serving
/// `www/`: HTTP/1.0 replies with `Last-Modified` only (no ETag, no compression), 304 to
/// `If-Modified-Since`. Its log (stderr, one line per request) gives the status, not the bytes.
///
/// Prefer ``withPythonHTTPServer(_:)``, which stops the server and removes its folder.
public final class PythonHTTPServer: LoopbackFolderServer {
  /// The started server: its folder (its log and `www/`), port and process.
  public let server: LoopbackServerProcess

  /// Starts the server and waits (bounded, 10 s) until it listens.
  ///
  /// - Throws: ``NginxServer/NginxError`` when python3 is missing, exits, or never listens.
  public init() throws {
    server = try LoopbackServerProcess(
      tool: "python3", install: "apt-get install -y python3", name: "pyhttp",
      worldReadable: false
    ) { _, www, port in
      .init(
        arguments: [
          "-u", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory",
          www.path,
        ], stderr: "requests.log", errorLog: "requests.log")
    }
  }

  /// Every request logged so far (`"GET /a.json HTTP/1.1" 304 -`); bytes are not logged.
  public func requests() -> [ServedRequest] {
    server.log("requests.log").split(separator: "\n").compactMap { line in
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
}

/// Starts a ``PythonHTTPServer``, runs `body` with it, and stops it when `body` returns or
/// throws.
///
/// - Returns: What `body` returns.
/// - Throws: What starting the server or `body` throws.
public func withPythonHTTPServer<T>(_ body: (PythonHTTPServer) async throws -> T) async throws
  -> T
{
  try await withLoopbackServer(PythonHTTPServer.init, body)
}
