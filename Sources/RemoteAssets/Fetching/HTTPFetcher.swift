import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Fetches `http://` and `https://` assets with async-http-client, streaming the body through our
/// own loop (not `FileDownloadDelegate`, which does not truncate an existing file, writes error
/// bodies into the file, leaves partial files on error and never fsyncs).
///
/// Redirects are followed here, not by the client: at most 5, never https -> http (unless the asset
/// allows insecure), never to another scheme, no cycles; a 304 carrying `Location` is refused.
///
/// Three limits bound every transfer, and the `.timedOut` error says which one was hit:
/// - the response head must arrive within `timeout` (per redirect hop);
/// - the body must keep ``minimumBytesPerSecond``, averaged over each `timeout` window;
/// - the whole transfer (redirects, heads and body) must end within
///   `timeout + bytes / minimumBytesPerSecond`, where `bytes` is the largest the body can be (the
///   expected size, else the announced length, else `maxBytes`; 200 bytes for an error body).
///
/// A body that is not used (a redirect's, a 304's) is read for at most min(`timeout` / 4, 1 s),
/// then dropped with its connection; an error body's 200 bytes are left to the overall deadline.
///
/// A request that ``FetchRequest/acceptsCompressed`` (and resumes nothing) asks for
/// `Accept-Encoding: gzip` and goes through a client that decodes gzip (``HTTPClientPool``),
/// bounded by the decoded size (never a ratio); the sink sees decoded bytes, so `maxBytes`, the
/// expected size and the hash apply to them. Such a response's `Content-Length` counts encoded
/// bytes: it is neither announced as the total nor compared with what was written; the decoder
/// proves the body complete (it fails a body that ends before its gzip stream does). Every other
/// request asks for `identity` through a client that decodes nothing. A `Content-Encoding` other
/// than gzip (or identity) is refused, and a range answered with an encoded part is asked for again
/// whole.
///
/// Header values never appear in an error: the client's own error descriptions (which can quote
/// them) are never used, and every message is passed through a ``SecretRedactor``.
package final class HTTPFetcher: AssetFetcher {
  /// One client per distinct (TLS settings, proxy), made when first needed.
  let clients: HTTPClientPool
  /// The proxy variables read at creation (`HTTPS_PROXY`, `NO_PROXY`, ...).
  public let proxyEnvironment: ProxyEnvironment
  /// The least throughput (bytes per second) a body must keep, averaged over each `timeout`
  /// window; also the rate the overall deadline allows for the body.
  public let minimumBytesPerSecond: Int64
  static let maxRedirects = 5
  /// Stops a transfer past its overall deadline or below the minimum throughput.
  let watch: TransferWatch

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
    // HTTP/2 when a TLS origin offers it over ALPN (AHC sends `h2, http/1.1`): the pool then
    // starts with one connection per origin and multiplexes every transfer on it, up to the
    // server's stream limit (nginx: 128), instead of up to eight HTTP/1.1 connections each
    // with its own handshake. Plain http stays HTTP/1.1 (no h2c). A stream the server resets
    // or refuses after a GOAWAY fails that one request, which the scheduler retries.
    configuration.httpVersion = .automatic
    // A refused connection should fail now (offline start, origin down) rather than be retried
    // until the deadline; the engine's scheduler owns retries, with backoff.
    configuration.connectionPool.retryConnectionEstablishment = false
    // No spans: the client would otherwise take the process's global tracer (a no-op unless
    // the app bootstraps one) and, for every request, cast it back and open a span on it.
    configuration.tracing.tracer = nil
    self.clients = HTTPClientPool(base: configuration)
    self.proxyEnvironment = ProxyEnvironment(environment)
    self.minimumBytesPerSecond = minimumBytesPerSecond
    self.watch = TransferWatch(minimumBytesPerSecond: minimumBytesPerSecond)
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

  /// Fetches `request` into `sink` within the three limits above.
  ///
  /// - Throws: ``FetchError``, its message free of the request's header values.
  public func fetch(_ request: FetchRequest, into sink: DownloadSink) async throws -> FetchResponse
  {
    let redactor = SecretRedactor(headers: request.headers)
    let deadline = TransferDeadline(for: request, minimumBytesPerSecond: minimumBytesPerSecond)
    // The transfer runs in a task of its own so that the fetcher's one watch can stop it.
    let transfer = Task {
      try await self.followRedirects(request, sink: sink, deadline: deadline, redactor: redactor)
    }
    let watched = watch.start(
      sink: sink, deadline: deadline, timeout: request.timeout, cancel: { transfer.cancel() })
    do {
      let response = try await withTaskCancellationHandler {
        try await transfer.value
      } onCancel: {
        transfer.cancel()
      }
      _ = watch.end(watched)
      return response
    } catch {
      if let reason = watch.end(watched) { throw FetchError(.timedOut, reason) }
      throw Self.translate(error, phase: "fetching", redactor: redactor)
    }
  }

  private func followRedirects(
    _ original: FetchRequest, sink: DownloadSink, deadline: TransferDeadline,
    redactor: SecretRedactor
  ) async throws -> FetchResponse {
    var url = try Self.acceptedURL(original)
    let first = url
    var visited: Set<String> = [url.absoluteString]
    var request = original
    for _ in 0...Self.maxRedirects {
      switch try await fetchOnce(
        request, url: url, sink: sink, deadline: deadline, redactor: redactor)
      {
      case .done(let response):
        return response
      case .restartWithoutRange:
        request.resume = nil
      case .redirect(let location):
        let next = try nextHop(from: url, location: location, allowInsecure: original.allowInsecure)
        guard visited.insert(next.absoluteString).inserted else {
          throw FetchError(.redirect, "redirect loop at \(next.absoluteString)")
        }
        if first.origin != next.origin {
          // Configured headers (tokens) are for the configured origin only.
          request.headers = []
        }
        url = next
      }
    }
    throw FetchError(.redirect, "more than \(Self.maxRedirects) redirects")
  }

  /// The one place a URL becomes something the client is handed: parsed into a `RemoteURL`,
  /// which cannot hold a port the client traps on (see ARCHITECTURE.md, "URLs"), and checked by
  /// the URL policy (once per URL: ``AcceptedURLs``).
  ///
  /// - Throws: ``FetchError`` of the refusal's kind.
  static func acceptedURL(_ request: FetchRequest) throws(FetchError) -> RemoteURL {
    do {
      return try AcceptedURLs.shared.accept(
        request.url.absoluteString, allowInsecure: request.allowInsecure)
    } catch {
      throw FetchError(error.kind, "refused the URL: \(error)")
    }
  }

  /// A GET of `url` with the configured `headers`, `Accept-Encoding: encoding` and our
  /// User-Agent unless the headers name one.
  static func clientRequest(_ url: RemoteURL, headers: [HeaderField], encoding: String)
    -> HTTPClientRequest
  {
    var http = HTTPClientRequest(url: url.absoluteString)
    http.method = .GET
    for header in headers { http.headers.replaceOrAdd(name: header.name, value: header.value) }
    http.headers.replaceOrAdd(name: "Accept-Encoding", value: encoding)
    if http.headers["User-Agent"].isEmpty {
      http.headers.add(name: "User-Agent", value: "RemoteAssets/1")
    }
    return http
  }

  /// Whether two URLs share scheme, host and port (the default port counts as named).
  static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
    guard let a = try? RemoteURL(a.absoluteString), let b = try? RemoteURL(b.absoluteString)
    else { return false }
    return a.origin == b.origin
  }

  /// Where a redirect from `url` to `location` leads: parsed into a ``RemoteURL`` and checked.
  ///
  /// - Throws: ``FetchError``: `.invalidURL` for a location the client may not be handed (a port
  ///   outside 1-65535, say), `.redirect` for another scheme, a downgrade or plain http to a
  ///   remote host.
  func nextHop(from url: RemoteURL, location: String, allowInsecure: Bool) throws(FetchError)
    -> RemoteURL
  {
    let next: RemoteURL
    do {
      next = try RemoteURL(resolving: location, against: url)
    } catch {
      throw FetchError(
        error.reason.isUnsupportedScheme ? .redirect : .invalidURL,
        "refused a redirect to an invalid location: \(error)")
    }
    try checkRedirect(from: url, to: next, allowInsecure: allowInsecure)
    return next
  }

  /// Refuses a redirect the policy forbids, or a downgrade from https to http.
  ///
  /// - Throws: ``FetchError`` of kind `.redirect`.
  private func checkRedirect(from: RemoteURL, to: RemoteURL, allowInsecure: Bool)
    throws(FetchError)
  {
    // Stricter than the policy: a downgrade is refused even to loopback.
    if from.scheme == .https, to.scheme == .http, !allowInsecure {
      throw FetchError(.redirect, "refused a redirect from https to http (\(to.host))")
    }
    do {
      try RemoteURLPolicy.check(to, allowInsecure: allowInsecure)
    } catch {
      throw FetchError(.redirect, "refused a redirect to plain http on \(to.host)")
    }
  }

  private enum Step {
    case done(FetchResponse)
    case redirect(String)
    /// The kept bytes cannot be proven complete or continued: ask for the whole body again.
    case restartWithoutRange
  }

  private func fetchOnce(
    _ request: FetchRequest, url remote: RemoteURL, sink: DownloadSink,
    deadline: TransferDeadline, redactor: SecretRedactor
  ) async throws -> Step {
    let url = remote.url
    // A range of an encoded representation cannot be spliced onto the decoded bytes held.
    let asksForGzip = request.acceptsCompressed && request.resume == nil
    var http = Self.clientRequest(
      remote, headers: request.headers, encoding: asksForGzip ? "gzip" : "identity")
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
    var route = try self.route(for: url, request: request)
    route.decodedLimit = asksForGzip ? HTTPClientPool.decodedLimit(maxBytes: request.maxBytes) : nil
    do {
      let client = try clients.client(for: route)
      response = try await UnsentRequest.send {
        try await client.execute(
          http, timeout: .milliseconds(TransferDeadline.milliseconds(request.timeout)))
      }
    } catch {
      if let sentence = await TransportFailure.describe(error, url: url, route: route) {
        throw sentence
      }
      throw Self.translate(
        error, url: url, phase: "waiting for the response", redactor: redactor,
        timeout: request.timeout)
    }
    let headers = response.headers
    let metadata = FetchMetadata(
      etag: headers.first(name: "ETag"), lastModified: headers.first(name: "Last-Modified"),
      freshness: FreshnessHeaders(headers))
    let status = Int(response.status.code)
    switch status {
    case 304:
      if !headers["Location"].isEmpty {
        throw FetchError(.redirect, "refused a 304 response that carries a Location header")
      }
      // Read the (empty) body to its end: a response dropped before the client saw its end is
      // cancelled, and the cancel closes the connection; a thousand revalidations would then
      // open hundreds of connections instead of reusing eight.
      await Self.drainNoBody(
        response, within: Self.unusedBodyTime(request.timeout), deadline: deadline)
      sink.transferEnded()
      return .done(.notModified(metadata))
    case 301, 302, 303, 307, 308:
      guard let location = headers.first(name: "Location") else {
        throw FetchError(.redirect, "HTTP \(status) without a Location header")
      }
      // The body of a redirect is not used, and no watchdog times it: a server dripping it
      // would hold the refresh until the overall deadline.
      await Self.drain(
        response.body, upTo: Self.errorSnippetBytes, within: Self.unusedBodyTime(request.timeout))
      return .redirect(location)
    case 200:
      let coding = try Self.contentCoding(headers, decoded: asksForGzip)
      try await stream(
        response, request: request, url: url, sink: sink, from: 0,
        decoded: coding == .decodedGzip, deadline: deadline, redactor: redactor)
      sink.transferEnded()
      return .done(.downloaded(metadata))
    case 206:
      guard let resume = request.resume else {
        throw FetchError(.httpStatus, "HTTP 206 to a request that asked for no range", status: 206)
      }
      let range = headers.first(name: "Content-Range").flatMap(ContentRange.init)
      guard let range, range.start == resume.offset, metadata.etag == resume.etag else {
        try sink.reset()  // the kept bytes cannot be trusted to continue: drop them
        throw FetchError(.truncated, "the server resumed at the wrong place; starting over")
      }
      guard try Self.contentCoding(headers, decoded: false) == .identity else {
        // A part of an encoded representation: its bytes do not continue the ones held.
        await Self.drain(
          response.body, upTo: Self.errorSnippetBytes,
          within: Self.unusedBodyTime(request.timeout))
        try sink.reset()
        return .restartWithoutRange
      }
      try await stream(
        response, request: request, url: url, sink: sink, from: range.start, total: range.total,
        decoded: false, deadline: deadline, redactor: redactor)
      sink.transferEnded()
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
          throw FetchError(.httpStatus, "HTTP 416 Range Not Satisfiable", status: 416)
        }
        try sink.reset()
        return .restartWithoutRange
      }
      return .done(
        .downloaded(
          FetchMetadata(etag: resume.etag, lastModified: nil, freshness: FreshnessHeaders(headers)))
      )
    default:
      // The overall deadline, now at most `timeout` + 200 bytes at the minimum throughput, ends
      // an error body dripped slowly (as a timeout): no bound of its own, which would race it.
      deadline.limitBody(to: Int64(Self.errorSnippetBytes))
      let snippet = await Self.errorSnippet(
        response.body, redactor: redactor, within: TransferDeadline.ceiling)
      if let refusal = TransportFailure.clientCertificateRefusal(
        status: status, snippet: snippet, url: url, tls: request.tls)
      {
        throw refusal
      }
      let reason = response.status.reasonPhrase
      throw FetchError(
        .httpStatus, "HTTP \(status) \(reason)\(snippet.isEmpty ? "" : ": \(snippet)")",
        status: status,
        retryAfter: Self.retryAfter(headers))
    }
  }

  /// Streams a body into the sink, chunk by chunk (backpressure keeps memory bounded): a 200 from
  /// the start (anything kept is discarded), a 206 appended after the `start` bytes held.
  private func stream(
    _ response: HTTPClientResponse, request: FetchRequest, url: URL, sink: DownloadSink,
    from start: Int64,
    total: Int64? = nil, decoded: Bool, deadline: TransferDeadline, redactor: SecretRedactor
  ) async throws {
    if start == 0 { try sink.reset() }
    let lengths = response.headers["Content-Length"]
    let contentLength = lengths.count == 1 ? Int64(lengths[0]) : nil
    if lengths.count > 1 {
      throw FetchError(.truncated, "the response has \(lengths.count) Content-Length headers")
    }
    // A decoded body's Content-Length counts the gzip bytes, not what the sink will hold; a
    // resumed body's counts the rest only (the whole is the Content-Range's total, which
    // `bytes a-b/*` leaves unknown).
    let announced = start > 0 ? total : total ?? (decoded ? nil : contentLength)
    try sink.announce(totalBytes: announced, etag: response.headers.first(name: "ETag"))
    // A server-supplied total can be any Int64: subtract only what cannot overflow.
    let remaining = total.flatMap { $0 >= start && start >= 0 ? $0 - start : nil }
    // The deadline times the bytes on the wire: the encoded length is the right bound.
    if let length = remaining ?? contentLength { deadline.limitBody(to: length) }
    let chunked = response.headers["Transfer-Encoding"].contains {
      $0.lowercased().contains("chunked")
    }
    // A small body (a Content-Length of at most ``smallBody``, not decoded) is written as it
    // arrives, on this thread: for a few kilobytes the writer thread's hand-over (a queue, a
    // wake-up, a drain) cost more than the write into the page cache.
    let small = !decoded && contentLength.map { $0 <= Self.smallBody } ?? false
    do {
      for try await buffer in response.body {
        if small { try sink.write(buffer) } else { try await sink.writeBehind(buffer) }
      }
      try await sink.finishWriting()
    } catch let error as FetchError {
      throw error
    } catch {
      throw Self.translate(
        error, url: url, phase: "reading the body after \(sink.bytesWritten) bytes",
        redactor: redactor, timeout: request.timeout)
    }
    sink.flushProgress()
    let received = sink.bytesWritten - start
    // A decoded body ended with its gzip stream (the decoder fails one that does not), and its
    // length on the wire was checked by the client's HTTP parser.
    if let contentLength, !decoded, received != contentLength {
      throw FetchError(.truncated, "the body ended after \(received) of \(contentLength) bytes")
    }
    // A resumed body must end where the whole does (a chunked 206 that stops short has no
    // Content-Length to tell).
    if start > 0, let total, sink.bytesWritten != total {
      throw FetchError(
        .truncated, "the resumed body ended at byte \(sink.bytesWritten) of \(total)")
    }
    // A close-delimited body looks exactly like a truncated one: trust it only when something
    // else (expected size or hash) can confirm it is complete.
    if contentLength == nil, !chunked, !decoded, !request.hasIndependentCheck {
      throw FetchError(
        .truncated,
        "the response has no Content-Length, so a complete body cannot be told from a cut one")
    }
  }

  // MARK: - Helpers

  /// How a 2xx body is encoded, as far as the sink is concerned.
  enum ContentCoding: Equatable {
    /// No `Content-Encoding` (or `identity`): the bytes are the representation.
    case identity
    /// `gzip`, decoded by the client (the request asked for it).
    case decodedGzip
    /// `gzip` or `x-gzip` to a request that asked for identity: kept as sent, as before this
    /// fetcher asked for compression (a `.gz` file that its server labels so is the file).
    case rawGzip
  }

  /// The body's coding, from its `Content-Encoding` header.
  static func contentCoding(_ headers: HTTPHeaders, decoded: Bool) throws(FetchError)
    -> ContentCoding
  {
    try contentCoding(headers[canonicalForm: "Content-Encoding"].map(String.init), decoded: decoded)
  }

  /// The body's coding, from the `Content-Encoding` values (split at commas).
  ///
  /// Each value is compared as the client's gzip decoder reads it: trimmed of ASCII spaces and
  /// tabs only (as `HTTPHeaders[canonicalForm:]` does), without regard to ASCII case, whole. A
  /// value the decoder would not take for gzip (`gzip` followed by U+00A0, say) is not gzip here
  /// either, so it is refused rather than taken for a body the decoder checked.
  ///
  /// - Parameter decoded: whether the request asked for gzip (its client decodes exactly one
  ///   `gzip`).
  /// - Throws: ``FetchError`` `.invalid` for any other coding (deflate, br, zstd, a chain, an
  ///   unknown token): none was asked for, and its bytes would reach the cache still encoded.
  static func contentCoding(_ encodings: [String], decoded: Bool) throws(FetchError)
    -> ContentCoding
  {
    let values = encodings.map(Self.codingToken)
    let codings = values.filter { !$0.isEmpty && $0 != "identity" }
    if codings.isEmpty { return .identity }
    // The client's decoder reads the first value only: accept exactly one `gzip`.
    if values == ["gzip"] { return decoded ? .decodedGzip : .rawGzip }
    if values == ["x-gzip"], !decoded { return .rawGzip }
    let shown = TerminalText.sanitize(values.joined(separator: ", "), maxLength: 60)
    throw FetchError(
      .invalid,
      "refused a body with Content-Encoding: \(shown), which was not asked for (the request accepts \(decoded ? "gzip or identity" : "identity"))"
    )
  }

  /// A `Content-Encoding` value trimmed of ASCII spaces and tabs, its ASCII letters lowercased;
  /// every other character kept as it is.
  static func codingToken(_ value: String) -> String {
    let blank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
    var scalars = Substring(value).unicodeScalars
    while let first = scalars.first, blank(first) { scalars.removeFirst() }
    while let last = scalars.last, blank(last) { scalars.removeLast() }
    var out = String.UnicodeScalarView()
    for scalar in scalars {
      out.append(("A"..."Z").contains(scalar) ? Unicode.Scalar(UInt8(scalar.value) | 0x20) : scalar)
    }
    return String(out)
  }

  /// An error in plain words (``TransportFailure/plain(_:endpoint:phase:timeout:)``), never
  /// quoting what the HTTP client put in its description (it can hold header values), and with
  /// every configured header value redacted.
  ///
  /// - Parameters:
  ///   - url: the URL being fetched, named as `host:port` in the sentence.
  ///   - phase: what was being done ("waiting for the response").
  ///   - redactor: the request's header values.
  ///   - timeout: the head timeout, named when it is what expired.
  static func translate(
    _ error: any Error, url: URL? = nil, phase: String,
    redactor: SecretRedactor = SecretRedactor(values: []), timeout: TimeInterval? = nil
  ) -> FetchError {
    var result = TransportFailure.plain(
      error, endpoint: url.map(TransportFailure.endpoint(of:)), phase: phase, timeout: timeout)
    result.message = TerminalText.sanitize(redactor.redact(result.message), maxLength: 300)
    return result
  }

  /// The largest body written as it arrives rather than by the sink's writer thread.
  static let smallBody: Int64 = 64 << 10

  /// How much of an error body is read for the message.
  static let errorSnippetBytes = 200

  /// The longest a body that is not used (a redirect's, a 304's, an encoded part's, a range
  /// error's) is read: the throughput watchdog times 2xx bodies only, and the overall deadline
  /// allows for the largest body, so a server dripping such a body a byte at a time would
  /// otherwise hold the transfer for minutes or hours. Past it the body is dropped, which closes
  /// the connection. A quarter of the timeout at most: the time is taken from the overall
  /// deadline, which the next hop's head and body still need. A body sent with its head (every
  /// ordinary redirect's) is read whole well within it, and the connection is reused.
  static func unusedBodyTime(_ timeout: TimeInterval) -> TimeInterval {
    min(TransferDeadline.clampSeconds(timeout) / 4, 1)
  }

  /// The start of an error body, for the message (never more than ``errorSnippetBytes`` is read,
  /// nor for longer than `seconds`), with header values redacted before it is cut to length.
  static func errorSnippet(
    _ body: HTTPClientResponse.Body, redactor: SecretRedactor = SecretRedactor(values: []),
    within seconds: TimeInterval
  ) async -> String {
    let collected = await readPrefix(body, upTo: errorSnippetBytes, within: seconds)
    let text = redactor.redact(String(decoding: collected, as: UTF8.self))
    return redactor.redact(
      TerminalText.sanitize(text, maxLength: 120).trimmingCharacters(in: .whitespaces))
  }

  /// Reads a body that is not used to its end, so the connection goes back to the pool; stops
  /// (and lets the client close the connection) after `limit` bytes or `seconds`, whichever
  /// comes first.
  static func drain(
    _ body: HTTPClientResponse.Body, upTo limit: Int, within seconds: TimeInterval
  ) async {
    _ = await readPrefix(body, upTo: limit, within: seconds)
  }

  /// Reads to its end the body of a response that has none by its status (a 304). Over HTTP/1.x
  /// the parser ends such a body with its head (RFC 9112, 6.3: whatever headers say), so no
  /// timer is set for it, and the transfer's overall deadline still bounds the read; over HTTP/2
  /// the end is the server's `END_STREAM`, which a server may withhold: the fetcher's watch
  /// stops the read after `seconds` (``TransferDeadline/boundUnusedBody(to:from:)``), and the 304
  /// stands.
  static func drainNoBody(
    _ response: HTTPClientResponse, within seconds: TimeInterval, deadline: TransferDeadline
  ) async {
    if response.version.major != 1 { deadline.boundUnusedBody(to: seconds) }
    defer { deadline.endUnusedBody() }
    do {
      for try await _ in response.body {}
    } catch {}
  }

  /// The first `limit` bytes of `body`, read until more than `limit` bytes arrived, the body
  /// ended, or `seconds` passed (then the read is cancelled, and the client drops the
  /// connection): what arrived by then.
  static func readPrefix(
    _ body: HTTPClientResponse.Body, upTo limit: Int, within seconds: TimeInterval
  ) async -> [UInt8] {
    let kept = BodyPrefix()
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        var seen = 0
        do {
          for try await buffer in body {
            seen += buffer.readableBytes
            kept.append(buffer.readableBytesView, upTo: limit)
            if seen > limit { return }
          }
        } catch {}
      }
      group.addTask { try? await Task.sleep(for: TransferDeadline.duration(seconds)) }
      await group.next()
      group.cancelAll()
    }
    return kept.bytes
  }

  /// `Retry-After` as delay-seconds (digits only) or an HTTP date, clamped to 0...86400.
  static func retryAfter(_ headers: HTTPHeaders) -> TimeInterval? {
    guard let value = headers.first(name: "Retry-After")?.trimmingCharacters(in: .whitespaces)
    else { return nil }
    if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
      // Digits only: never inf, nan or negative; a huge count is simply the cap.
      return min(Double(value) ?? 86400, 86400)
    }
    guard let date = HTTPDate.parse(value) else { return nil }
    return min(max(date.timeIntervalSinceNow, 0), 86400)
  }
}

/// The bytes of a body read so far, shared between the reading task and the one that gives up.
private final class BodyPrefix: Sendable {
  private let state = Mutex<[UInt8]>([])

  var bytes: [UInt8] { state.withLock { $0 } }

  func append(_ more: ByteBufferView, upTo limit: Int) {
    state.withLock { $0 += more.prefix(max(0, limit - $0.count)) }
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
