import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Fetches `http://` and `https://` assets with async-http-client, streaming the body through our
/// own loop (see notes/http-and-storage.md for why not `FileDownloadDelegate`).
///
/// Redirects are followed here, not by the client: at most 5, never https -> http (unless the asset
/// allows insecure), never to another scheme, no cycles; a 304 carrying `Location` is refused.
public final class HTTPFetcher: AssetFetcher {
  /// One client per distinct (TLS settings, proxy), made when first needed.
  let clients: HTTPClientPool
  /// The proxy variables read at creation (`HTTPS_PROXY`, `NO_PROXY`, ...).
  public let proxyEnvironment: ProxyEnvironment
  /// The least throughput (bytes per second) a body must keep, averaged over each `timeout` window.
  public let minimumBytesPerSecond: Int64
  static let maxRedirects = 5

  /// Creates a fetcher; its HTTP clients are made when first needed. Call ``shutdown()`` when
  /// done.
  ///
  /// - Parameters:
  ///   - minimumBytesPerSecond: the least throughput a body must keep.
  ///   - environment: where the proxy variables are read (`HTTPS_PROXY`, `http_proxy`,
  ///     `ALL_PROXY`, `NO_PROXY`); tests pass their own rather than changing the process's.
  public init(
    minimumBytesPerSecond: Int64 = 1024,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    var configuration = HTTPClient.Configuration(
      redirectConfiguration: .disallow,
      // `read` also runs while backpressure holds reads back: keep it generous.
      timeout: .init(connect: .seconds(10), read: .seconds(60)),
      decompression: .disabled)
    configuration.httpVersion = .http1Only
    // A refused connection should fail now (offline start, origin down) rather than be retried
    // until the deadline; the engine's scheduler owns retries, with backoff.
    configuration.connectionPool.retryConnectionEstablishment = false
    self.clients = HTTPClientPool(base: configuration)
    self.proxyEnvironment = ProxyEnvironment(environment)
    self.minimumBytesPerSecond = minimumBytesPerSecond
  }

  /// Shuts every HTTP client down.
  ///
  /// - Throws: a client's shutdown error.
  public func shutdown() async throws {
    try await clients.shutdown()
  }

  public func canFetch(_ url: URL) -> Bool {
    let scheme = url.scheme?.lowercased()
    return scheme == "http" || scheme == "https"
  }

  public func fetch(_ request: FetchRequest, into sink: DownloadSink) async throws -> FetchResponse
  {
    try await withThrowingTaskGroup(of: FetchResponse?.self) { group in
      group.addTask { try await self.followRedirects(request, sink: sink) }
      group.addTask {
        try await self.watchdog(sink: sink, timeout: request.timeout)
        return nil
      }
      defer { group.cancelAll() }
      while let result = try await group.next() {
        if let result { return result }
      }
      throw FetchError(.network, "the transfer ended without a result")
    }
  }

  /// Abandons a body that keeps less than the minimum throughput over each `timeout` window.
  private func watchdog(sink: DownloadSink, timeout: TimeInterval) async throws {
    let window = Duration.milliseconds(Int64(max(timeout, 0.2) * 1000))
    let minimum = max(1, Int64(Double(minimumBytesPerSecond) * timeout))
    while true {
      try await Task.sleep(for: .milliseconds(100))
      if let reason = sink.stallReason(window: window, minimumBytes: minimum) {
        throw FetchError(.timeout, reason)
      }
    }
  }

  private func followRedirects(_ original: FetchRequest, sink: DownloadSink) async throws
    -> FetchResponse
  {
    var url = original.url
    var visited: Set<String> = [url.absoluteString]
    var request = original
    for _ in 0...Self.maxRedirects {
      switch try await fetchOnce(request, url: url, sink: sink) {
      case .done(let response):
        return response
      case .restartWithoutRange:
        request.resume = nil
      case .redirect(let location):
        guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
          throw FetchError(.redirect, "redirect to an invalid location")
        }
        try checkRedirect(from: url, to: next, allowInsecure: original.allowInsecure)
        guard visited.insert(next.absoluteString).inserted else {
          throw FetchError(.redirect, "redirect loop at \(next.absoluteString)")
        }
        if !Self.sameOrigin(original.url, next) {
          // Configured headers (tokens) are for the configured origin only.
          request.headers = []
        }
        url = next
      }
    }
    throw FetchError(.redirect, "more than \(Self.maxRedirects) redirects")
  }

  /// Whether two URLs share scheme, host and port.
  static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
    a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
      && a.port == b.port
  }

  func checkRedirect(from: URL, to: URL, allowInsecure: Bool) throws {
    let scheme = to.scheme?.lowercased() ?? ""
    guard scheme == "http" || scheme == "https" else {
      throw FetchError(.redirect, "refused a redirect to a \(scheme): URL")
    }
    if from.scheme?.lowercased() == "https", scheme == "http", !allowInsecure {
      throw FetchError(.redirect, "refused a redirect from https to http (\(to.host ?? ""))")
    }
    if scheme == "http", !allowInsecure, !ConfigValues.isLoopback(host: to.host ?? "") {
      throw FetchError(.redirect, "refused a redirect to plain http on \(to.host ?? "")")
    }
  }

  private enum Step {
    case done(FetchResponse)
    case redirect(String)
    /// The kept bytes cannot be proven complete or continued: ask for the whole body again.
    case restartWithoutRange
  }

  private func fetchOnce(_ request: FetchRequest, url: URL, sink: DownloadSink) async throws -> Step
  {
    var http = HTTPClientRequest(url: url.absoluteString)
    http.method = .GET
    for header in request.headers {
      http.headers.replaceOrAdd(name: header.name, value: header.value)
    }
    http.headers.replaceOrAdd(name: "Accept-Encoding", value: "identity")
    if http.headers["User-Agent"].isEmpty {
      http.headers.add(name: "User-Agent", value: "RemoteAssets/1")
    }
    if let etag = request.etag { http.headers.replaceOrAdd(name: "If-None-Match", value: etag) }
    if let lastModified = request.lastModified {
      http.headers.replaceOrAdd(name: "If-Modified-Since", value: lastModified)
    }
    if let resume = request.resume {
      // If-Range: the rest of *this* version, or the whole of a new one (never a splice).
      http.headers.replaceOrAdd(name: "Range", value: "bytes=\(resume.offset)-")
      http.headers.replaceOrAdd(name: "If-Range", value: resume.etag)
    }

    let response: HTTPClientResponse
    let route = try self.route(for: url, request: request)
    do {
      response = try await clients.client(for: route).execute(
        http, timeout: .milliseconds(Int64(request.timeout * 1000)))
    } catch {
      if let sentence = await TransportFailure.describe(error, url: url, route: route) {
        throw sentence
      }
      throw Self.translate(error, phase: "connecting to \(url.host ?? "the server")")
    }
    let headers = response.headers
    let metadata = FetchMetadata(
      etag: headers.first(name: "ETag"), lastModified: headers.first(name: "Last-Modified"),
      maxAge: Self.maxAge(headers), finalURL: url)
    let status = Int(response.status.code)
    switch status {
    case 304:
      if !headers["Location"].isEmpty {
        throw FetchError(.redirect, "refused a 304 response that carries a Location header")
      }
      return .done(.notModified(metadata))
    case 301, 302, 303, 307, 308:
      guard let location = headers.first(name: "Location") else {
        throw FetchError(.redirect, "HTTP \(status) without a Location header")
      }
      return .redirect(location)
    case 200:
      try await stream(response, request: request, sink: sink, from: 0)
      return .done(.downloaded(metadata))
    case 206:
      guard let resume = request.resume else {
        throw FetchError(.http, "HTTP 206 to a request that asked for no range", status: 206)
      }
      let range = headers.first(name: "Content-Range").flatMap(ContentRange.init)
      guard let range, range.start == resume.offset, metadata.etag == resume.etag else {
        try sink.reset()  // the kept bytes cannot be trusted to continue: drop them
        throw FetchError(.truncated, "the server resumed at the wrong place; starting over")
      }
      try await stream(
        response, request: request, sink: sink, from: range.start, total: range.total)
      return .done(.downloaded(metadata))
    case 416:
      // Nothing left to send. The bytes held count as complete only when the server's length is
      // what we hold AND the config or manifest can prove it (an expected size equal to it, or a
      // hash checked before commit); otherwise a server saying `*/<what you have>` could make a
      // truncated file look whole. Anything else: start over without a Range.
      let total = headers.first(name: "Content-Range").flatMap(ContentRange.init)?.total
      guard let resume = request.resume, total == resume.offset,
        request.expectedSize == resume.offset || request.expectedSHA256 != nil
      else {
        guard request.resume != nil else {
          throw FetchError(.http, "HTTP 416 Range Not Satisfiable", status: 416)
        }
        try sink.reset()
        return .restartWithoutRange
      }
      return .done(.downloaded(FetchMetadata(etag: resume.etag, finalURL: url)))
    default:
      let snippet = await Self.errorSnippet(response.body)
      if let refusal = TransportFailure.clientCertificateRefusal(
        status: status, snippet: snippet, url: url, tls: request.tls)
      {
        throw refusal
      }
      let reason = response.status.reasonPhrase
      throw FetchError(
        .http, "HTTP \(status) \(reason)\(snippet.isEmpty ? "" : ": \(snippet)")", status: status,
        retryAfter: Self.retryAfter(headers))
    }
  }

  /// Streams a body into the sink, chunk by chunk (backpressure keeps memory bounded): a 200 from
  /// the start (anything kept is discarded), a 206 appended after the `start` bytes held.
  private func stream(
    _ response: HTTPClientResponse, request: FetchRequest, sink: DownloadSink, from start: Int64,
    total: Int64? = nil
  ) async throws {
    if start == 0 { try sink.reset() }
    let lengths = response.headers["Content-Length"]
    let contentLength = lengths.count == 1 ? Int64(lengths[0]) : nil
    if lengths.count > 1 {
      throw FetchError(.truncated, "the response has \(lengths.count) Content-Length headers")
    }
    try sink.announce(
      totalBytes: total ?? contentLength, etag: response.headers.first(name: "ETag"))
    let chunked = response.headers["Transfer-Encoding"].contains {
      $0.lowercased().contains("chunked")
    }
    do {
      for try await buffer in response.body {
        try buffer.withUnsafeReadableBytes { try sink.write($0) }
      }
    } catch let error as FetchError {
      throw error
    } catch {
      throw Self.translate(error, phase: "reading the body after \(sink.bytesWritten) bytes")
    }
    sink.flushProgress()
    let received = sink.bytesWritten - start
    if let contentLength, received != contentLength {
      throw FetchError(.truncated, "the body ended after \(received) of \(contentLength) bytes")
    }
    // A close-delimited body looks exactly like a truncated one: trust it only when something
    // else (expected size or hash) can confirm it is complete.
    if contentLength == nil, !chunked, !request.hasIndependentCheck {
      throw FetchError(
        .truncated,
        "the response has no Content-Length, so a complete body cannot be told from a cut one")
    }
  }

  // MARK: - Helpers

  static func translate(_ error: any Error, phase: String) -> FetchError {
    if let error = error as? FetchError { return error }
    if error is CancellationError { return FetchError(.timeout, "cancelled while \(phase)") }
    if let error = error as? HTTPClientError {
      if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
        return FetchError(.timeout, "timed out while \(phase)")
      }
      if error == .remoteConnectionClosed {
        return FetchError(.truncated, "the server closed the connection while \(phase)")
      }
    }
    if let error = error as? HTTPParserError {
      return FetchError(.truncated, "malformed or cut response while \(phase) (\(error))")
    }
    if let error = error as? IOError {
      return FetchError(.network, "\(error.description) while \(phase)")
    }
    return FetchError(.network, "\(String(describing: error)) while \(phase)")
  }

  /// The first 200 bytes of an error body, for the message (never more is read).
  static func errorSnippet(_ body: HTTPClientResponse.Body) async -> String {
    var collected = [UInt8]()
    do {
      for try await buffer in body {
        collected += buffer.readableBytesView.prefix(200 - collected.count)
        if collected.count >= 200 { break }
      }
    } catch {}
    let text = String(decoding: collected, as: UTF8.self)
    return TerminalText.sanitize(text, maxLength: 120).trimmingCharacters(in: .whitespaces)
  }

  /// `Retry-After` as seconds or an HTTP date, clamped to 0...86400.
  static func retryAfter(_ headers: HTTPHeaders) -> TimeInterval? {
    guard let value = headers.first(name: "Retry-After")?.trimmingCharacters(in: .whitespaces)
    else { return nil }
    if let seconds = Double(value) { return min(max(seconds, 0), 86400) }
    guard let date = HTTPDate.parse(value) else { return nil }
    return min(max(date.timeIntervalSinceNow, 0), 86400)
  }

  /// `Cache-Control: max-age=N` (or 0 for `no-cache` / `no-store`).
  static func maxAge(_ headers: HTTPHeaders) -> TimeInterval? {
    let directives = headers["Cache-Control"].flatMap { $0.split(separator: ",") }
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    if directives.contains("no-cache") || directives.contains("no-store") { return 0 }
    for d in directives where d.hasPrefix("max-age=") {
      if let n = Double(d.dropFirst("max-age=".count)) { return max(0, n) }
    }
    return nil
  }
}

/// `Content-Range: bytes START-END/TOTAL` (or `bytes */TOTAL`).
struct ContentRange {
  var start: Int64
  var total: Int64?

  init?(_ text: String) {
    let value = text.trimmingCharacters(in: .whitespaces)
    guard value.lowercased().hasPrefix("bytes ") else { return nil }
    let parts = value.dropFirst(6).split(separator: "/", maxSplits: 1)
    guard parts.count == 2 else { return nil }
    total = Int64(parts[1])
    if parts[0] == "*" {
      start = -1
    } else {
      guard let s = parts[0].split(separator: "-").first.flatMap({ Int64($0) }) else { return nil }
      start = s
    }
  }
}

/// HTTP-date (RFC 9110, IMF-fixdate) formatting and parsing.
enum HTTPDate {
  static func format(_ date: Date) -> String {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "GMT")
    f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return f.string(from: date)
  }

  static func parse(_ text: String) -> Date? {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "GMT")
    f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return f.date(from: text)
  }
}
