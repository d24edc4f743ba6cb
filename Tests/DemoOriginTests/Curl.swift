import AssetWatchTestKit
import Foundation

/// What one `curl` run saw: its exit code, the last response's status and headers, and the body.
struct CurlResult {
  var exitCode: Int32
  var status: Int?
  /// The raw header block of every response, as bytes (so escape bytes survive).
  var rawHeaders: Data
  var body: Data
  var stdout: String
  var stderr: String

  /// The values of header `name` (case-insensitive) in the last response.
  func headers(_ name: String) -> [String] {
    headerLines.compactMap { line in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      guard line[..<colon].lowercased() == name.lowercased() else { return nil }
      return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
  }

  /// The first value of header `name`.
  func header(_ name: String) -> String? { headers(name).first }

  private var headerLines: [String] {
    let text = String(decoding: rawHeaders, as: UTF8.self)
    let blocks = text.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
    return (blocks.last ?? "").components(separatedBy: "\r\n")
  }
}

/// Runs the system `curl` against the origin, as an independent HTTP client nobody here wrote.
enum Curl {
  /// Fetches `url` with extra `curl` arguments; never follows redirects, never uses a proxy.
  static func fetch(_ url: String, _ arguments: [String] = []) async throws -> CurlResult {
    try await withTemporaryDirectory(prefix: "demo-origin") { folder in
      let headerFile = folder.url("headers")
      let bodyFile = folder.url("body")
      try folder.file("headers", Data())
      try folder.file("body", Data())
      let base = [
        "-sS", "--noproxy", "*", "--max-time", "60", "-D", headerFile.path, "-o", bodyFile.path,
      ]
      let (code, out, err) = try await run(base + arguments + [url])
      let rawHeaders = try Data(contentsOf: headerFile)
      let statusLine = String(decoding: rawHeaders, as: UTF8.self)
        .components(separatedBy: "\r\n").last { $0.hasPrefix("HTTP/") }
      let status = statusLine.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
      return CurlResult(
        exitCode: code, status: status, rawHeaders: rawHeaders,
        body: try Data(contentsOf: bodyFile), stdout: out, stderr: err)
    }
  }

  /// Runs `curl` with `arguments`; returns its exit code, stdout and stderr.
  static func run(_ arguments: [String]) async throws -> (Int32, String, String) {
    let result = try await ProcessRunner.run(
      executable: "/usr/bin/curl", arguments, timeout: 300)
    return (result.status, result.stdout, result.stderr)
  }

  /// The lowercase hex SHA-256 of the file at `path`, from the system's `sha256sum`.
  static func sha256(ofFile path: String) async throws -> String {
    let result = try await ProcessRunner.runTool("sha256sum", [path], timeout: 120)
    return String(result.stdout.prefix(64))
  }
}
