import AssetModel
import Foundation

/// Where Prometheus' HTTP API is: a base URL (with or without a trailing slash, maybe under a
/// path prefix) and optional basic-auth credentials, and the request URLs built from it. Pure.
public struct PrometheusEndpoint: Sendable, Equatable {
  /// The base URL without credentials and without trailing slashes, e.g.
  /// `http://127.0.0.1:9090` or `https://mon.example.com/prometheus`.
  public let base: String
  /// `user:password` for basic auth, if any; never shown.
  public let credentials: String?

  /// Parses `url`; credentials come from the URL's user info or, when given, `credentials`
  /// (`user:password`, e.g. from an environment variable).
  ///
  /// - Throws: ``PrometheusAPIError`` when `url` is not an absolute `http` or `https` URL with a
  ///   host, or has a query or fragment.
  public init(url: String, credentials: String? = nil) throws {
    let shown = TerminalText.sanitize(url, maxLength: 200)
    guard var parts = URLComponents(string: url.trimmingCharacters(in: .whitespaces)),
      let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let host = parts.host, !host.isEmpty
    else {
      throw PrometheusAPIError(
        "--prometheus needs Prometheus' http:// or https:// URL, such as http://127.0.0.1:9090;"
          + " got \(shown).")
    }
    guard parts.query == nil, parts.fragment == nil else {
      throw PrometheusAPIError(
        "--prometheus takes Prometheus' base URL without a query or fragment; got \(shown).")
    }
    var userInfo: String?
    if let user = parts.user {
      userInfo = user + ":" + (parts.password ?? "")
    }
    parts.user = nil
    parts.password = nil
    while parts.path.hasSuffix("/") { parts.path.removeLast() }
    guard let text = parts.string else {
      throw PrometheusAPIError("--prometheus: \(shown) is not a usable URL.")
    }
    base = text
    self.credentials = credentials ?? userInfo
  }

  /// The URL of an instant query for `query` evaluated at `time`.
  public func queryURL(_ query: String, at time: Date) -> String {
    base + "/api/v1/query?query=" + Self.encode(query) + "&time="
      + String(format: "%.3f", time.timeIntervalSince1970)
  }

  /// The URL of the loaded configuration (`/api/v1/status/config`).
  public var configURL: String { base + "/api/v1/status/config" }

  /// The `Authorization` header's value for the credentials, if any.
  public var authorization: String? {
    credentials.map { "Basic " + Data($0.utf8).base64EncodedString() }
  }

  /// Percent-encodes everything but unreserved characters (a `+` must not become a space).
  static func encode(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics.intersection(
      .init(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }
}
