import AsyncHTTPClient
import Foundation
import NIOCore

/// The answer to one byte-range request of a delta update
/// (``AssetFetcher/fetchRange(_:range:total:)``).
public enum RangeAnswer: Sendable {
  /// Exactly the bytes asked for (an HTTP 206), in order, with the response's validators.
  case partial([ByteBuffer], FetchMetadata)
  /// The source sent the whole body (an HTTP 200) or otherwise ignored the range.
  case ignored(status: Int)
}

extension HTTPFetcher {
  /// HTTP(S) URLs: servers answer `Range` with 206 (those that do not are noticed and get one
  /// whole download).
  public func canFetchRanges(_ url: URL) -> Bool { canFetch(url) }

  /// Fetches `range` of `request.url` (`Range: bytes=a-b`, identity encoding, the request's
  /// headers, redirects followed as for a whole download) into memory: ranges are at most a few
  /// MiB (``DeltaPlan/maxRangeBytes``), so several can be in flight.
  ///
  /// The transfer must end within the request's `timeout` plus the range's length at
  /// ``minimumBytesPerSecond``.
  ///
  /// - Parameter total: the whole file's size, which the `Content-Range` must name.
  /// - Throws: ``FetchError``: a status other than 200/206, a `Content-Range` that is not the
  ///   range asked for, a body of another length, a transport failure or the deadline.
  public func fetchRange(_ request: FetchRequest, range: Range<Int64>, total: Int64)
    async throws(FetchError) -> RangeAnswer
  {
    let redactor = SecretRedactor(headers: request.headers)
    let length = range.upperBound - range.lowerBound
    let seconds =
      TransferDeadline.clampSeconds(request.timeout) + Double(length)
      / Double(max(minimumBytesPerSecond, 1))
    do {
      return try await withThrowingTaskGroup(of: RangeAnswer?.self) { group in
        group.addTask {
          try await self.followRangeRedirects(
            request, range: range, total: total, redactor: redactor)
        }
        group.addTask {
          try await Task.sleep(for: TransferDeadline.duration(seconds))
          throw FetchError(
            .timedOut, "a range of \(length) bytes took longer than \(Int(seconds.rounded())) s")
        }
        defer { group.cancelAll() }
        while let answer = try await group.next() {
          if let answer { return answer }
        }
        throw FetchError(.network, "the range request ended without a result")
      }
    } catch {
      // Every message, a FetchError's too (it can quote the server: a Content-Range, a body),
      // passes through the redactor, as a whole download's do.
      throw Self.translate(error, phase: "fetching a range", redactor: redactor)
    }
  }

  private func followRangeRedirects(
    _ original: FetchRequest, range: Range<Int64>, total: Int64, redactor: SecretRedactor
  ) async throws -> RangeAnswer {
    var url = try Self.acceptedURL(original)
    let first = url
    var headers = original.headers
    for _ in 0...Self.maxRedirects {
      var http = Self.clientRequest(url, headers: headers, encoding: "identity")
      http.headers.replaceOrAdd(
        name: "Range", value: "bytes=\(range.lowerBound)-\(range.upperBound - 1)")
      let route = try self.route(for: url.url, request: original)
      let response: HTTPClientResponse
      do {
        response = try await clients.client(for: route).execute(
          http, timeout: .milliseconds(TransferDeadline.milliseconds(original.timeout)))
      } catch {
        if let sentence = await TransportFailure.describe(error, url: url.url, route: route) {
          throw sentence
        }
        throw Self.translate(
          error, url: url.url, phase: "waiting for a range", redactor: redactor,
          timeout: original.timeout)
      }
      let status = Int(response.status.code)
      switch status {
      case 301, 302, 303, 307, 308:
        guard let location = response.headers.first(name: "Location") else {
          throw FetchError(.redirect, "HTTP \(status) without a Location header")
        }
        await Self.drain(
          response.body, upTo: Self.errorSnippetBytes,
          within: Self.unusedBodyTime(original.timeout))
        let next = try nextHop(from: url, location: location, allowInsecure: original.allowInsecure)
        if first.origin != next.origin { headers = [] }
        url = next
        continue
      case 206:
        let contentRange = response.headers.first(name: "Content-Range")
        guard let parsed = contentRange.flatMap(ContentRange.init),
          parsed.start == range.lowerBound, parsed.total == total,
          contentRange.map({ Self.rangeEnd($0) == range.upperBound - 1 }) == true
        else {
          throw FetchError(
            .httpStatus,
            "the server answered a range request with another range (\(TerminalText.sanitize(contentRange ?? "no Content-Range", maxLength: 60)))",
            status: 206)
        }
        // One buffer of the range's size (at most a few MiB), copied into: the parts as they
        // arrive would each keep their whole read buffer alive, however small the part.
        let expected = range.upperBound - range.lowerBound
        var collected = ByteBufferAllocator().buffer(capacity: Int(expected))
        for try await buffer in response.body {
          guard buffer.readableBytes <= Int(expected) - collected.readableBytes else {
            throw Self.rangeBodyMismatch("brought more than the \(expected) bytes it names")
          }
          collected.writeImmutableBuffer(buffer)
        }
        // The body ended where the server's own framing said (a cut connection throws above):
        // a server that sends another length than its Content-Range does so every time, so it
        // is a refusal the delta falls back from, not an interruption to resume.
        guard collected.readableBytes == Int(expected) else {
          throw Self.rangeBodyMismatch(
            "ended after \(collected.readableBytes) of the \(expected) bytes it names")
        }
        let metadata = FetchMetadata(
          etag: response.headers.first(name: "ETag"),
          lastModified: response.headers.first(name: "Last-Modified"),
          freshness: FreshnessHeaders(response.headers))
        return .partial([collected], metadata)
      case 200:
        // The body is not read: dropping it closes the connection, cheaper than a whole file.
        return .ignored(status: 200)
      default:
        let snippet = await Self.errorSnippet(
          response.body, redactor: redactor, within: Self.unusedBodyTime(original.timeout))
        throw FetchError(
          .httpStatus,
          "HTTP \(status) \(response.status.reasonPhrase) to a range request\(snippet.isEmpty ? "" : ": \(snippet)")",
          status: status)
      }
    }
    throw FetchError(.redirect, "more than \(Self.maxRedirects) redirects")
  }

  /// A 206 whose body is not the length of the range its `Content-Range` names.
  static func rangeBodyMismatch(_ what: String) -> FetchError {
    FetchError(.httpStatus, "the answer to a range request \(what)", status: 206)
  }

  /// The last byte of `bytes START-END/TOTAL`, or nil.
  static func rangeEnd(_ text: String) -> Int64? {
    let value = text.trimmingCharacters(in: .whitespaces).dropFirst("bytes ".count)
    guard let span = value.split(separator: "/").first,
      let dash = span.firstIndex(of: "-")
    else { return nil }
    return Int64(span[span.index(after: dash)...])
  }
}
