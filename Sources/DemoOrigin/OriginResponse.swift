import Foundation

/// A response the origin writes, including byte-level misbehaviour for tests of hostile servers.
///
/// The writer sends exactly `headers` in order (duplicates included), then adds only what
/// `framing` needs and the headers do not already say: `Content-Length` for `.contentLength`,
/// `Transfer-Encoding: chunked` for `.chunked`. Nothing is validated, so a test can send two
/// `Content-Length` headers, a wrong one, or header values with escape sequences.
public struct OriginResponse: Sendable {
  /// How the end of the body is signalled.
  public enum Framing: Sendable, Equatable {
    /// A `Content-Length` header (added when the headers have none).
    case contentLength
    /// No length at all: the body ends when the server closes the connection.
    case closeDelimited
    /// `Transfer-Encoding: chunked`, with chunks of at most `chunkSize` bytes.
    case chunked(chunkSize: Int)
  }

  /// How fast the body is written.
  public enum Pacing: Sendable, Equatable {
    /// `bytes` bytes, then a pause of `every`, repeated.
    case drip(bytes: Int, every: Duration)
    /// About `bytesPerSecond`, written in pieces of about a twentieth of a second each.
    case rateLimit(bytesPerSecond: Int)
  }

  /// How the connection is cut short.
  public enum Interruption: Sendable, Equatable {
    /// Close the connection (FIN) after this many body bytes.
    case close(afterBodyBytes: Int)
    /// Reset the connection (RST, via `SO_LINGER` 0) after this many body bytes.
    case reset(afterBodyBytes: Int)
  }

  /// The status code.
  public var status: Int
  /// The reason phrase; `nil` uses the standard one for `status`.
  public var reason: String?
  /// The headers, written in this order, duplicates included.
  public var headers: [OriginHeader]
  /// The body (not written for HEAD requests, 1xx, 204 and 304).
  public var body: OriginBody
  /// How the body's end is signalled.
  public var framing: Framing
  /// A pause before anything is written.
  public var delayBeforeHead: Duration?
  /// How fast the body is written; `nil` writes as fast as the client reads.
  public var pacing: Pacing?
  /// How the connection is cut short; `nil` completes the response.
  public var interruption: Interruption?
  /// When set, exactly these bytes are written instead of a response, then the connection closes.
  public var rawBytes: [UInt8]?

  /// Creates a response; every byte-level behaviour is off by default.
  public init(
    status: Int = 200,
    reason: String? = nil,
    headers: [OriginHeader] = [],
    body: OriginBody = .empty,
    framing: Framing = .contentLength,
    delayBeforeHead: Duration? = nil,
    pacing: Pacing? = nil,
    interruption: Interruption? = nil
  ) {
    self.status = status
    self.reason = reason
    self.headers = headers
    self.body = body
    self.framing = framing
    self.delayBeforeHead = delayBeforeHead
    self.pacing = pacing
    self.interruption = interruption
  }

  /// A response of `body` bytes with the given status and content type.
  public static func data(
    _ body: Data, status: Int = 200, contentType: String = "application/octet-stream"
  ) -> OriginResponse {
    OriginResponse(
      status: status, headers: [OriginHeader("Content-Type", contentType)], body: .data(body))
  }

  /// A plain-text response.
  public static func text(_ text: String, status: Int = 200) -> OriginResponse {
    data(Data(text.utf8), status: status, contentType: "text/plain; charset=utf-8")
  }

  /// A "response" that is exactly `bytes` on the wire, after which the connection closes.
  public static func raw(_ bytes: [UInt8], delayBeforeHead: Duration? = nil) -> OriginResponse {
    var response = OriginResponse(delayBeforeHead: delayBeforeHead)
    response.rawBytes = bytes
    return response
  }

  /// A raw response given as text (for readability in tests; `\r\n` must be written out).
  public static func raw(_ text: String, delayBeforeHead: Duration? = nil) -> OriginResponse {
    raw(Array(text.utf8), delayBeforeHead: delayBeforeHead)
  }

  /// Whether the status forbids a body (1xx, 204, 304).
  var statusForbidsBody: Bool {
    (100..<200).contains(status) || status == 204 || status == 304
  }
}
