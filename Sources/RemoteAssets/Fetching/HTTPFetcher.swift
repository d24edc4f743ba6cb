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
  private let client: HTTPClient
  /// The least throughput (bytes per second) a body must keep, averaged over each `timeout` window.
  public let minimumBytesPerSecond: Int64
  static let maxRedirects = 5

  /// Creates a fetcher with its own HTTP client; call ``shutdown()`` when done.
  public init(minimumBytesPerSecond: Int64 = 1024) {
    var configuration = HTTPClient.Configuration(
      redirectConfiguration: .disallow,
      // `read` also runs while backpressure holds reads back: keep it generous.
      timeout: .init(connect: .seconds(10), read: .seconds(60)),
      decompression: .disabled)
    configuration.httpVersion = .http1Only
    // A refused connection should fail now (offline start, origin down) rather than be retried
    // until the deadline; the engine's scheduler owns retries, with backoff.
    configuration.connectionPool.retryConnectionEstablishment = false
    self.client = HTTPClient(
      eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    self.minimumBytesPerSecond = minimumBytesPerSecond
  }

  /// Shuts the HTTP client down.
  ///
  /// - Throws: the client's shutdown error.
  public func shutdown() async throws {
    guard isShutDown.exchange(true, ordering: .acquiring) == false else { return }
    try await client.shutdown()
  }

  private let isShutDown = Atomic<Bool>(false)

  deinit {
    // An owner that forgot `shutdown()` (or a failed test) must not crash the process: the
    // client traps when released while running. This runs on whatever thread drops the last
    // reference, never an event loop of the client's own, so the blocking shutdown is safe.
    if !isShutDown.load(ordering: .acquiring) { try? client.syncShutdown() }
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
    do {
      response = try await client.execute(
        http, timeout: .milliseconds(Int64(request.timeout * 1000)))
    } catch {
      throw Self.translate(error, phase: "connecting to \(url.host ?? "the server")")
    }
    let headers = response.headers
    let metadata = FetchMetadata(
      etag: headers.first(name: "ETag"), lastModified: headers.first(name: "Last-Modified"),
      freshness: FreshnessHeaders(headers), finalURL: url)
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
      // Nothing left to send: complete if the server's length is what we hold.
      let total = headers.first(name: "Content-Range").flatMap(ContentRange.init)?.total
      guard let resume = request.resume, total == resume.offset else {
        try sink.reset()
        throw FetchError(.truncated, "HTTP 416 Range Not Satisfiable; starting over")
      }
      return .done(
        .downloaded(
          FetchMetadata(etag: resume.etag, freshness: FreshnessHeaders(headers), finalURL: url)))
    default:
      let snippet = await Self.errorSnippet(response.body)
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
