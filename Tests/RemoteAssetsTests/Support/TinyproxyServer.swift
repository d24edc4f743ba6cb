import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit

/// Debian's tinyproxy in the foreground on a free loopback port, logging every request to a file
/// in its temporary folder.
final class TinyproxyServer {
  let root: URL
  let port: Int
  private let process: Process
  private let logURL: URL
  private let outputURL: URL

  /// The proxy URL to put in `HTTPS_PROXY`.
  var url: String { "http://127.0.0.1:\(port)" }

  /// - Parameter basicAuth: user and password the proxy requires (`BasicAuth`), if any.
  init(basicAuth: (user: String, password: String)? = nil) throws {
    guard let tinyproxy = ExternalTool.path("tinyproxy") else {
      throw NginxServer.NginxError("tinyproxy is not installed (apt-get install -y tinyproxy)")
    }
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "aw-tinyproxy-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    port = try NginxServer.freePort()
    logURL = root.appendingPathComponent("tinyproxy.log")
    outputURL = root.appendingPathComponent("output.log")
    FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    let conf = """
      Port \(port)
      Listen 127.0.0.1
      Timeout 30
      MaxClients 16
      LogFile "\(logURL.path)"
      LogLevel Connect
      PidFile "\(root.appendingPathComponent("tinyproxy.pid").path)"
      \(basicAuth.map { "BasicAuth \($0.user) \($0.password)" } ?? "")
      """
    let confURL = root.appendingPathComponent("tinyproxy.conf")
    try Data(conf.utf8).write(to: confURL)
    process = Process()
    process.executableURL = URL(fileURLWithPath: tinyproxy)
    process.arguments = ["-d", "-c", confURL.path]
    let output = try FileHandle(forWritingTo: outputURL)
    process.standardOutput = output
    process.standardError = output
    try process.run()
    try NginxServer.waitUntilListening(port: port, process: process, errorLog: outputURL.path)
  }

  /// Every request line tinyproxy logged (`CONNECT 127.0.0.1:8443 HTTP/1.1`, `GET http://...`).
  var requests: [String] {
    // tinyproxy writes to its LogFile as it goes; its stdout is buffered (read only as a fallback,
    // so no line counts twice).
    let logged = requestLines(in: logURL)
    return logged.isEmpty ? requestLines(in: outputURL) : logged
  }

  private func requestLines(in file: URL) -> [String] {
    let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      guard let range = line.range(of: "Request (file descriptor ") else { return nil }
      guard let colon = line[range.upperBound...].range(of: "): ") else { return nil }
      return String(line[colon.upperBound...])
    }
  }

  func stop() {
    if process.isRunning {
      // tinyproxy waits for its open tunnels on SIGTERM; nothing of it needs a clean exit.
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: root)
  }
}
