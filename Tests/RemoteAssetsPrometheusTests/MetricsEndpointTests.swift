import AssetWatchTestKit
import Foundation
import NIOCore
import NIOHTTP1
import RemoteAssets
import RemoteAssetsPrometheus
import RemoteAssetsTestKit
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The HTTP endpoint: `GET /metrics` in the text format, 404 elsewhere, 405 for other methods.
@Suite struct MetricsEndpointTests {
  /// Runs `body` with an endpoint for `exporter` on a free loopback port, closed afterwards.
  func withEndpoint<T>(
    _ exporter: PrometheusExporter, _ body: (String) async throws -> T
  ) async throws -> T {
    let endpoint = try await MetricsEndpoint.bind(MetricsAddress(port: 0), exporter: exporter)
    let serving = Task { try await endpoint.run() }
    defer {
      endpoint.close()
      serving.cancel()
    }
    return try await body("http://127.0.0.1:\(endpoint.port)")
  }

  @Test func servesTheScrapeWithTheTextFormatsContentType() async throws {
    try await withExportedEngine { engine, exporter, rollout in
      await rollout.publish(body: #"{"v":1}"#, version: "v1", manifestVersion: "rollout-7")
      await engine.refreshManifest()
      _ = await engine.refresh("flags")
      try await withEndpoint(exporter) { (base: String) async throws in
        let reply = try await httpGet("\(base)/metrics")
        #expect(reply.status == 200)
        #expect(reply.contentType == "text/plain; version=0.0.4; charset=utf-8")
        let scrape = Exposition(reply.body)
        #expect(scrape.value("remote_assets_asset_behind", [("asset", "flags")]) == 0)
        #expect(scrape.value("remote_assets_manifest_info", [("version", "rollout-7")]) == 1)
        // A query string is ignored; HEAD has the headers and no body.
        #expect(try await httpGet("\(base)/metrics?x=1").status == 200)
        let head = try await httpGet("\(base)/metrics", method: .HEAD)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
      }
    }
  }

  @Test func otherPathsAre404AndOtherMethods405() async throws {
    try await withEndpoint(PrometheusExporter()) { (base: String) async throws in
      #expect(try await httpGet("\(base)/").status == 404)
      #expect(try await httpGet("\(base)/metrics/x").status == 404)
      #expect(try await httpGet("\(base)/metricsx").status == 404)
      #expect(try await httpGet("\(base)/metrics", method: .POST).status == 405)
    }
  }

  /// Prometheus keeps its connection open between scrapes: closing the endpoint must end it too,
  /// or a graceful shutdown would wait for the scraper to hang up.
  @Test func closeEndsOpenKeepAliveConnections() async throws {
    let endpoint = try await MetricsEndpoint.bind(
      MetricsAddress(port: 0), exporter: PrometheusExporter())
    let finished = Mutex(false)
    let serving = Task {
      try? await endpoint.run()
      finished.withLock { $0 = true }
    }
    defer { serving.cancel() }
    // The shared client keeps this connection open in its pool.
    #expect(try await httpGet("http://127.0.0.1:\(endpoint.port)/metrics").status == 200)
    endpoint.close()
    let deadline = Date().addingTimeInterval(30)
    while !finished.withLock({ $0 }), Date() < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(finished.withLock { $0 }, "run() still waits for the open connection")
  }

  /// Runs `body` with the port of an endpoint bound with these limits, closed afterwards.
  func withLimitedEndpoint<T>(
    _ exporter: PrometheusExporter = PrometheusExporter(),
    maxConnections: Int = MetricsEndpoint.defaultMaxConnections,
    idleTimeout: TimeAmount = MetricsEndpoint.defaultIdleTimeout, _ body: (Int) async throws -> T
  ) async throws -> T {
    let endpoint = try await MetricsEndpoint.bind(
      MetricsAddress(port: 0), exporter: exporter, maxConnections: maxConnections,
      idleTimeout: idleTimeout)
    let serving = Task { try await endpoint.run() }
    defer {
      endpoint.close()
      serving.cancel()
    }
    return try await body(endpoint.port)
  }

  /// A remote client must not run the engine out of file descriptors: past the cap a connection
  /// is closed before its request is read, and the connections already open are still answered.
  @Test func connectionsBeyondTheCapAreClosedWhileTheFirstStillAnswer() async throws {
    try await withLimitedEndpoint(maxConnections: 2) { port in
      let first = try RawHTTPConnection(port: port)
      let second = try RawHTTPConnection(port: port)
      for connection in [first, second] {
        #expect(try await connection.get("/metrics")?.status == 200)
      }
      let third = try RawHTTPConnection(port: port)
      // The server may have closed it already: then this send fails, and that is fine.
      try? await third.send(RawHTTPConnection.request("/metrics"))
      #expect(await third.waitForClose() == .closed(bytesRead: 0))
      // Both slots are still held, by the connections that are still answered.
      for connection in [first, second] {
        #expect(try await connection.get("/metrics")?.status == 200)
      }
      let fourth = try RawHTTPConnection(port: port)
      #expect(await fourth.waitForClose() == .closed(bytesRead: 0))
    }
  }

  /// An idle connection is closed once the idle timeout passes (awaited: the read returns EOF).
  @Test func anIdleConnectionIsClosedAfterTheIdleTimeout() async throws {
    try await withLimitedEndpoint(idleTimeout: .milliseconds(300)) { port in
      let connection = try RawHTTPConnection(port: port)
      #expect(try await connection.get("/metrics")?.status == 200)
      let idleSince = ContinuousClock.now
      #expect(await connection.waitForClose(timeout: 15) == .closed(bytesRead: 0))
      #expect(ContinuousClock.now - idleSince >= .milliseconds(250))
    }
  }

  /// A peer that pipelines scrapes and never reads the answers is cut off by the idle timeout
  /// too, with its later requests never read: the server stopped reading once its responses
  /// backed up (closing a socket with unread input resets it, which the client sees without
  /// reading a byte), so they do not pile up, and the connection does not stay forever.
  @Test func aPeerThatNeverReadsIsCutOffAfterTheIdleTimeout() async throws {
    try await withExportedEngine { engine, exporter, rollout in
      await rollout.publish(body: #"{"v":1}"#, version: "v1", manifestVersion: "rollout-7")
      await engine.refreshManifest()
      _ = await engine.refresh("flags")
      try await withLimitedEndpoint(exporter, idleTimeout: .milliseconds(300)) { port in
        let connection = try RawHTTPConnection(port: port, receiveBuffer: 4096)
        // Some 80 KB of requests, for some MB of answers.
        let pipelined = String(repeating: RawHTTPConnection.request("/metrics"), count: 2000)
        try await connection.send(pipelined)
        #expect(await connection.waitForReset(timeout: 15), "still open, or closed with all read")
      }
    }
  }

  /// Prometheus scrapes over one keep-alive connection: the limits must not get in its way, and
  /// a scraper that hangs up gives its slot back (else the cap would end the endpoint for good).
  @Test func aKeepAliveScraperIsAnsweredAndItsSlotIsGivenBack() async throws {
    try await withExportedEngine { engine, exporter, rollout in
      await rollout.publish(body: #"{"v":1}"#, version: "v1", manifestVersion: "rollout-7")
      await engine.refreshManifest()
      _ = await engine.refresh("flags")
      try await withLimitedEndpoint(exporter, maxConnections: 1) { port in
        try await scrapesThenReconnects(port: port)
      }
    }
  }

  /// Three scrapes on one connection, a hang-up, then a new connection until one is answered.
  private func scrapesThenReconnects(port: Int) async throws {
    let scraper = try RawHTTPConnection(port: port)
    for _ in 0..<3 {
      let reply = try await scraper.get("/metrics")
      #expect(reply?.status == 200)
      #expect(reply?.headers["content-type"] == MetricsEndpoint.contentType)
      #expect(reply?.headers["connection"] == nil)
      let scrape = Exposition(reply?.body ?? "")
      #expect(scrape.value("remote_assets_asset_behind", [("asset", "flags")]) == 0)
    }
    scraper.hangUp()
    // The server notices the hang-up on its own loop: try again until a connection is taken.
    let deadline = ContinuousClock.now + .seconds(15)
    var answered = false
    while !answered, ContinuousClock.now < deadline {
      let next = try RawHTTPConnection(port: port)
      answered = ((try? await next.get("/metrics")) ?? nil)?.status == 200
    }
    #expect(answered, "the slot of a closed connection was not given back")
  }

  @Test func aTakenPortIsABindError() async throws {
    let exporter = PrometheusExporter()
    let first = try await MetricsEndpoint.bind(MetricsAddress(port: 0), exporter: exporter)
    defer { first.close() }
    await #expect(throws: (any Error).self) {
      let second = try await MetricsEndpoint.bind(
        MetricsAddress(port: first.port), exporter: exporter)
      second.close()
    }
  }
}

/// A plain TCP client on 127.0.0.1 speaking HTTP/1.1 by hand, to hold connections open, read
/// nothing, or see exactly when the server closes. Blocking calls run on a thread of their own
/// (`OwnThread`) and give up after the socket's receive timeout.
final class RawHTTPConnection: Sendable {
  /// How a wait for the server's close ended.
  enum Close: Equatable {
    /// EOF or a reset, after this many bytes.
    case closed(bytesRead: Int)
    /// Still open at the deadline.
    case stillOpen
  }

  struct Reply {
    var status: Int
    /// Lowercased names.
    var headers: [String: String]
    var body: String
  }

  let fd: Int32
  private let pending = Mutex<[UInt8]>([])

  /// Connects; `receiveBuffer` shrinks the socket's receive buffer (set before connecting).
  init(port: Int, receiveBuffer: Int32? = nil) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    if var size = receiveBuffer {
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected else {
      let code = errno
      close(fd)
      throw POSIXError(POSIXErrorCode(rawValue: code) ?? .ECONNREFUSED)
    }
    setTimeout(seconds: 15)
  }

  deinit { close(fd) }

  /// A keep-alive request for `path`.
  static func request(_ path: String) -> String {
    "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
  }

  private func setTimeout(seconds: Int) {
    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  /// Sends all of `text`.
  ///
  /// - Throws: `POSIXError` when the server closed or the send timed out.
  func send(_ text: String) async throws {
    let bytes = Array(text.utf8)
    let fd = self.fd
    let failure: Int32? = await OwnThread.run {
      var offset = 0
      while offset < bytes.count {
        let n = bytes.withUnsafeBytes {
          Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        }
        guard n > 0 else { return errno }
        offset += n
      }
      return nil
    }
    if let failure { throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO) }
  }

  /// What one blocking read got.
  private enum Read {
    case bytes(Int)
    case eof, reset, timedOut
  }

  /// One blocking read into `pending`.
  private func readOnce() async -> Read {
    let fd = self.fd
    let (chunk, code): ([UInt8], Int32) = await OwnThread.run {
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      let n = recv(fd, &buffer, buffer.count, 0)
      return n < 0 ? ([], errno) : (Array(buffer[0..<n]), 0)
    }
    if code == EAGAIN || code == EWOULDBLOCK { return .timedOut }
    if code != 0 { return .reset }
    if chunk.isEmpty { return .eof }
    pending.withLock { $0.append(contentsOf: chunk) }
    return .bytes(chunk.count)
  }

  /// Sends `GET path` and reads its response; nil when the server closed before a whole one.
  func get(_ path: String) async throws -> Reply? {
    try await send(Self.request(path))
    return await readReply()
  }

  /// Reads one whole response (with a `Content-Length`); nil when the connection ended first.
  func readReply() async -> Reply? {
    let separator = Array("\r\n\r\n".utf8)
    while true {
      let parsed: Reply?? = pending.withLock { bytes in
        guard let end = bytes.firstRange(of: separator) else { return .none }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
          .components(separatedBy: "\r\n")
        let status = lines[0].split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
          guard let colon = line.firstIndex(of: ":") else { continue }
          headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
            .trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard bytes.count - end.upperBound >= length else { return .none }
        let body = String(decoding: bytes[end.upperBound..<end.upperBound + length], as: UTF8.self)
        bytes.removeFirst(end.upperBound + length)
        return .some(Reply(status: status, headers: headers, body: body))
      }
      if let parsed { return parsed }
      guard case .bytes = await readOnce() else { return nil }
    }
  }

  /// Waits for the server to close: reads until EOF or a reset, or until `timeout` seconds pass
  /// with no byte.
  func waitForClose(timeout: Int = 15) async -> Close {
    setTimeout(seconds: timeout)
    var total = pending.withLock { $0.count }
    while true {
      switch await readOnce() {
      case .bytes(let n): total += n
      case .eof, .reset: return .closed(bytesRead: total)
      case .timedOut: return .stillOpen
      }
    }
  }

  /// Waits, reading nothing, until the server resets the connection (`poll` reports an error or
  /// hang-up, which a plain close does not while the client leaves data unread); false after
  /// `timeout` seconds.
  func waitForReset(timeout: Int) async -> Bool {
    let fd = self.fd
    return await OwnThread.run {
      var entry = pollfd(fd: fd, events: 0, revents: 0)
      return poll(&entry, 1, Int32(timeout * 1000)) == 1
        && entry.revents & Int16(POLLERR | POLLHUP) != 0
    }
  }

  /// Closes the client's side (the server reads EOF).
  func hangUp() { shutdown(fd, Int32(SHUT_RDWR)) }
}
