import AsyncHTTPClient
import NIOHTTP2

/// A request the server never processed, sent again at once.
///
/// Over HTTP/2 a server ends a connection with GOAWAY (nginx after `keepalive_requests` streams,
/// 1,000 by default; any server on reload or shutdown), naming the last stream it will answer.
/// Streams the client had already opened past it are dropped unprocessed (RFC 9113, 6.8), and a
/// stream the server answers with `REFUSED_STREAM` was not processed either (8.7): such a
/// request may be sent again on a new connection, as browsers and curl do. async-http-client
/// fails them instead (a dropped stream as `StreamClosed` with `CANCEL`, a request handed to
/// the closing connection as `HTTPClientError.cancelled`); without this, a GOAWAY in the middle
/// of a sync failed every transfer in flight past its last stream, and the engine reported them
/// and waited for backoff. A stream the server resets after taking it (nginx's `return 444`:
/// `PROTOCOL_ERROR`) is its answer, and is not sent again.
///
/// Over HTTP/1.1 the same race has another form: a keep-alive connection the server closes as
/// the request goes out (lighttpd and Apache close idle ones after 5 s, nginx after 75 s) ends
/// before any response. Every request here is a `GET`, which may be sent again when its
/// connection closed before the response began (RFC 9110, 9.2.2), as curl does; a server that
/// closes every connection so costs ``attempts`` requests, then the failure.
enum UnsentRequest {
  /// How many times one request is sent at most.
  static let attempts = 3

  /// Whether `error` says the request never reached the server's processing, or that its
  /// connection closed before any response. Our own cancellation (the watchdog's, a shutdown's)
  /// never counts.
  static func wasNeverProcessed(_ error: any Error) -> Bool {
    if Task.isCancelled { return false }
    if let closed = error as? NIOHTTP2Errors.StreamClosed {
      return closed.errorCode == .refusedStream || closed.errorCode == .cancel
    }
    if let error = error as? HTTPClientError {
      return error == .cancelled || error == .remoteConnectionClosed
    }
    return false
  }

  /// Runs `send` again (up to ``attempts`` times in all) while it fails with a request the
  /// server never processed.
  ///
  /// - Throws: The last attempt's error, or the first one that is not such a failure.
  static func send<Response>(_ send: () async throws -> Response) async throws -> Response {
    var attempt = 1
    while true {
      do {
        return try await send()
      } catch let error where attempt < attempts && wasNeverProcessed(error) {
        attempt += 1
      }
    }
  }
}
