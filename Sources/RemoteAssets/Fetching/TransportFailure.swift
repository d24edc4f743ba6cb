import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOHTTPCompression
import NIOPosix
import NIOSSL

/// The one place where what the HTTP client throws becomes a ``FetchError``: a kind (`.refused`,
/// `.reset`, `.timedOut`, `.dns`, `.tls`, ...) and one plain sentence that says what happened,
/// never the client's or NIO's own description of its types.
///
/// ``describe(_:url:route:)`` words TLS and proxy failures (an untrusted or expired server
/// certificate, a certificate for another host, a refused client certificate, a proxy that refused
/// the connection or wants credentials), probing the server's certificate when that helps;
/// ``plain(_:endpoint:phase:timeout:)`` words the rest (refused, reset, timed out, DNS, a cut
/// response).
enum TransportFailure {
  /// The sentence for `error`, or nil when it is not a TLS or proxy failure.
  ///
  /// For a certificate problem on a direct connection, the server's certificate is read once more
  /// without verifying it (``CertificateProbe``), to name the hosts it is for or when it expired.
  static func describe(_ error: any Error, url: URL, route: HTTPClientPool.Key) async
    -> FetchError?
  {
    if error is FetchError || error is CancellationError { return nil }
    let host = url.host ?? "the server"
    let text = String(describing: error)
    let proxy = route.proxy.map { "the proxy \($0)" }

    if let error = error as? HTTPClientError {
      if error == .proxyAuthenticationRequired, let proxy {
        return FetchError(
          .network,
          route.proxy?.hasCredentials == true
            ? "\(proxy) refused the credentials in its URL (HTTP 407)"
            : "\(proxy) requires credentials (HTTP 407); put them in the proxy URL as http://user:password@host:port"
        )
      }
      if error == .invalidProxyResponse, let proxy {
        let target = "\(host):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
        return FetchError(
          .network,
          route.proxy?.hasCredentials == true
            ? "\(proxy) refused to open a tunnel to \(target) (check the credentials in its URL, and that it allows that port)"
            : "\(proxy) refused to open a tunnel to \(target) (does it allow that port?)")
      }
      if error == .httpProxyHandshakeTimeout || error == .socksHandshakeTimeout, let proxy {
        return FetchError(.timedOut, "\(proxy) did not answer in time")
      }
    }
    if let proxy, isConnectionRefused(error, text: text, to: route.proxy) {
      return FetchError(.refused, "\(proxy) refused the connection")
    }
    guard url.scheme?.lowercased() == "https" else { return nil }

    if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
      return await hostnameMismatch(url: url, route: route)
    }
    let upper = text.uppercased()
    if upper.contains("CERTIFICATE_VERIFY_FAILED") {
      return await untrusted(url: url, route: route)
    }
    // Alerts the server sends about our certificate (or its absence): TLS 1.3's
    // certificate_required, and the older alerts a server sends when it cannot use ours.
    let clientAlerts = [
      "CERTIFICATE_REQUIRED", "SSLV3_ALERT_BAD_CERTIFICATE", "TLSV1_ALERT_UNKNOWN_CA",
      "SSLV3_ALERT_CERTIFICATE_UNKNOWN", "SSLV3_ALERT_CERTIFICATE_EXPIRED",
      "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE", "TLSV1_ALERT_ACCESS_DENIED",
    ]
    if clientAlerts.contains(where: { upper.contains($0) }) {
      return clientCertificateRefused(hasClientCertificate: route.tls?.hasClientCertificate == true)
    }
    return nil
  }

  /// The sentence for an HTTP error that is really a refused client certificate (nginx completes
  /// the handshake and answers 400 "No required SSL certificate was sent" or "The SSL certificate
  /// error"), or nil.
  static func clientCertificateRefusal(status: Int, snippet: String, url: URL, tls: TLSSettings?)
    -> FetchError?
  {
    guard status == 400 || status == 495 || status == 496, url.scheme?.lowercased() == "https"
    else { return nil }
    let lower = snippet.lowercased()
    guard
      status != 400 || lower.contains("no required ssl certificate")
        || lower.contains("ssl certificate error")
    else { return nil }
    return clientCertificateRefused(hasClientCertificate: tls?.hasClientCertificate == true)
  }

  static func clientCertificateRefused(hasClientCertificate: Bool) -> FetchError {
    FetchError(
      .tls,
      hasClientCertificate
        ? "the server refused the client certificate in tls.certFile (not signed by a CA it trusts, or expired)"
        : "the server refused the client certificate (or required one): set tls.certFile and tls.keyFile"
    )
  }

  // MARK: - Certificates

  static func hostnameMismatch(url: URL, route: HTTPClientPool.Key) async -> FetchError {
    let host = url.host ?? "the server"
    if route.proxy == nil, let leaf = await CertificateProbe.leaf(of: url) {
      let names = leaf.names
      if !names.isEmpty {
        let shown = names.prefix(4).joined(separator: ", ") + (names.count > 4 ? ", ..." : "")
        return FetchError(.tls, "the certificate is for \(shown), not \(host)")
      }
    }
    return FetchError(.tls, "the certificate does not name \(host)")
  }

  static func untrusted(url: URL, route: HTTPClientPool.Key) async -> FetchError {
    if route.proxy == nil, let leaf = await CertificateProbe.leaf(of: url) {
      let now = Date()
      if leaf.notValidAfter < now {
        return FetchError(
          .tls, "the server's certificate expired on \(day(leaf.notValidAfter))")
      }
      if leaf.notValidBefore > now {
        return FetchError(
          .tls,
          "the server's certificate is not valid before \(day(leaf.notValidBefore)) (check this machine's clock)"
        )
      }
    }
    let advice =
      route.tls?.caFile == nil
      ? "set tls.caFile to the CA that signed it"
      : "tls.caFile is not the CA that signed it"
    return FetchError(.tls, "the server's certificate is not trusted (unknown CA); \(advice)")
  }

  static func day(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd"
    return formatter.string(from: date)
  }

  // MARK: - Connections

  /// Whether the connection to the proxy itself was refused.
  static func isConnectionRefused(_ error: any Error, text: String, to proxy: ProxyServer?)
    -> Bool
  {
    guard proxy != nil else { return false }
    if errnoCode(of: error) == ECONNREFUSED { return true }
    return text.contains("connectionRefused") || text.contains("Connection refused")
  }

  /// The `errno` under `error`: an `IOError`'s own, or the first connection attempt's in a
  /// `NIOConnectionError` (one per address tried).
  static func errnoCode(of error: any Error) -> Int32? {
    if let io = error as? IOError { return io.errnoCode }
    if let connection = error as? NIOConnectionError {
      let codes = connection.connectionErrors.compactMap { ($0.error as? IOError)?.errnoCode }
      // Refused by every address is refused; otherwise the first reason.
      return codes.first { $0 != ECONNREFUSED } ?? codes.first
    }
    return nil
  }

  /// The host name that did not resolve, when `error` is a failed DNS lookup.
  static func unresolvedHost(_ error: any Error) -> String? {
    if let unknown = error as? SocketAddressError.UnknownHost { return unknown.host }
    if let error = error as? SocketAddressError, case .unknown(let host, _) = error { return host }
    if let connection = error as? NIOConnectionError, connection.connectionErrors.isEmpty,
      connection.dnsAError != nil || connection.dnsAAAAError != nil
    {
      return connection.host
    }
    return nil
  }

  // MARK: - Plain words

  /// `host:port` for `url` (the scheme's port when it names none), as the sentences show it.
  static func endpoint(of url: URL) -> String {
    let host = url.host ?? "the server"
    let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
  }

  /// One plain sentence for a transport failure that is not TLS or a proxy's.
  ///
  /// - Parameters:
  ///   - endpoint: `host:port` of the server, when known.
  ///   - phase: what was being done ("waiting for the response", "reading the body after 10
  ///     bytes").
  ///   - timeout: the asset's timeout, named when it is what expired.
  static func plain(
    _ error: any Error, endpoint: String?, phase: String, timeout: TimeInterval?
  ) -> FetchError {
    if let error = error as? FetchError { return error }
    let server = endpoint ?? "the server"
    if error is CancellationError {
      return FetchError(.cancelled, "the transfer was cancelled while \(phase)")
    }
    if let host = unresolvedHost(error) {
      return FetchError(.dns, "the host name \(host) could not be resolved (DNS lookup failed)")
    }
    if let error = error as? HTTPClientError {
      return clientError(error, server: server, phase: phase, timeout: timeout)
    }
    if let code = errnoCode(of: error) {
      return posixError(code, server: server, phase: phase)
    }
    if let error = error as? NIOHTTPDecompression.DecompressionError {
      return decompressionError(error, server: server, phase: phase)
    }
    if let error = error as? NIOHTTPDecompression.ExtraDecompressionError {
      if error == .truncatedData {
        return FetchError(
          .truncated, "\(server) sent a gzip body that ends before its gzip stream does (\(phase))")
      }
      return FetchError(.invalid, "\(server) sent bytes after the end of a gzip body (\(phase))")
    }
    if let closed = error as? NIOHTTP2Errors.StreamClosed {
      return FetchError(
        .reset,
        "\(server) reset the HTTP/2 stream (\(streamErrorName(closed.errorCode))) while \(phase)")
    }
    if error is HTTPParserError {
      return FetchError(
        .truncated, "\(server) sent a malformed or cut response while \(phase) (\(error))")
    }
    if let error = error as? ChannelError {
      if case .connectTimeout = error {
        return FetchError(.timedOut, "could not connect to \(server) in time")
      }
      return FetchError(.network, "the connection to \(server) failed while \(phase)")
    }
    if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
      return FetchError(.tls, "the TLS handshake with \(server) failed while \(phase)")
    }
    return FetchError(.network, "\(String(describing: error)) while \(phase)")
  }

  private static func clientError(
    _ error: HTTPClientError, server: String, phase: String, timeout: TimeInterval?
  ) -> FetchError {
    switch error {
    case .deadlineExceeded:
      let limit =
        timeout.map { " within \(DurationText.format($0)) (the asset's timeout)" } ?? " in time"
      return FetchError(.timedOut, "no response from \(server)\(limit) while \(phase)")
    case .connectTimeout, .getConnectionFromPoolTimeout:
      return FetchError(.timedOut, "could not connect to \(server) in time")
    case .tlsHandshakeTimeout:
      return FetchError(.timedOut, "the TLS handshake with \(server) did not finish in time")
    case .readTimeout:
      return FetchError(.timedOut, "\(server) stopped sending while \(phase)")
    case .remoteConnectionClosed:
      return FetchError(.truncated, "\(server) closed the connection while \(phase)")
    case .cancelled where !Task.isCancelled:
      // Not ours: the client handed the request to a connection the server was closing
      // (HTTP/2 GOAWAY), after ``UnsentRequest``'s attempts.
      return FetchError(
        .reset, "\(server) closed the HTTP/2 connection before the request was sent (\(phase))")
    case .cancelled:
      return FetchError(.cancelled, "the transfer was cancelled while \(phase)")
    default:
      // `description` includes associated values: `invalidHeaderFieldValues` quotes the
      // offending header values whole. `shortDescription` never carries them.
      return FetchError(.network, "HTTP client error (\(error.shortDescription)) while \(phase)")
    }
  }

  /// What the client's gzip decoder refused: a body decoding past its size bound (`.tooLarge`,
  /// like a body past `maxBytes`: see ``HTTPClientPool/decodedLimit(maxBytes:)``), or bytes that
  /// are not gzip.
  private static func decompressionError(
    _ error: NIOHTTPDecompression.DecompressionError, server: String, phase: String
  ) -> FetchError {
    switch error {
    case .limit:
      return FetchError(
        .tooLarge, "the gzip body from \(server) passed maxBytes once decoded (\(phase))")
    case .inflationError, .initializationError:
      return FetchError(.invalid, "\(server) sent a corrupt gzip body (\(phase))")
    }
  }

  /// The RFC 9113 name of an HTTP/2 error code (`CANCEL`, `REFUSED_STREAM`), or its number.
  static func streamErrorName(_ code: HTTP2ErrorCode) -> String {
    let names = [
      "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
      "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
      "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]
    let number = Int(code.networkCode)
    return number < names.count ? names[number] : "error code \(number)"
  }

  private static func posixError(_ code: Int32, server: String, phase: String) -> FetchError {
    switch code {
    case ECONNREFUSED:
      return FetchError(.refused, "connection refused by \(server) — nothing is listening there")
    case ECONNRESET, EPIPE:
      return FetchError(.reset, "\(server) reset the connection while \(phase)")
    case ETIMEDOUT:
      return FetchError(.timedOut, "\(server) did not answer in time while \(phase)")
    case ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN:
      return FetchError(.network, "\(server) cannot be reached (no route to it) while \(phase)")
    default:
      let reason = String(cString: strerror(code)).lowercased()
      return FetchError(.network, "\(reason) talking to \(server) while \(phase)")
    }
  }
}
