import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Turns TLS and proxy failures into one plain sentence that says which: an untrusted or expired
/// server certificate, a certificate for another host, a refused client certificate, a proxy that
/// refused the connection or wants credentials. Other failures are left to the caller.
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
        return FetchError(.timeout, "\(proxy) did not answer in time")
      }
    }
    if let proxy, isConnectionRefused(error, text: text, to: route.proxy) {
      return FetchError(.network, "\(proxy) refused the connection")
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
      .network,
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
        return FetchError(.network, "the certificate is for \(shown), not \(host)")
      }
    }
    return FetchError(.network, "the certificate does not name \(host)")
  }

  static func untrusted(url: URL, route: HTTPClientPool.Key) async -> FetchError {
    if route.proxy == nil, let leaf = await CertificateProbe.leaf(of: url) {
      let now = Date()
      if leaf.notValidAfter < now {
        return FetchError(
          .network, "the server's certificate expired on \(day(leaf.notValidAfter))")
      }
      if leaf.notValidBefore > now {
        return FetchError(
          .network,
          "the server's certificate is not valid before \(day(leaf.notValidBefore)) (check this machine's clock)"
        )
      }
    }
    let advice =
      route.tls?.caFile == nil
      ? "set tls.caFile to the CA that signed it"
      : "tls.caFile is not the CA that signed it"
    return FetchError(.network, "the server's certificate is not trusted (unknown CA); \(advice)")
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
    if let io = error as? IOError, io.errnoCode == ECONNREFUSED { return true }
    if let connection = error as? NIOConnectionError {
      return connection.connectionErrors.contains {
        ($0.error as? IOError)?.errnoCode == ECONNREFUSED
      }
    }
    return text.contains("connectionRefused") || text.contains("Connection refused")
  }
}
