import AssetModel
import Foundation

/// Where Prometheus' HTTP API is: a base URL (with or without a trailing slash, maybe under a
/// path prefix) parsed as a ``RemoteURL`` (so no URL the HTTP client cannot take ever reaches
/// it), optional basic-auth credentials, and the request URLs built from it. Pure.
public struct PrometheusEndpoint: Sendable, Equatable {
  /// The parsed base URL, without credentials, query, fragment or trailing slashes.
  package let url: RemoteURL
  /// `user:password` for basic auth, if any; never shown.
  public let credentials: String?

  /// The base URL as shown, e.g. `http://127.0.0.1:9090` or
  /// `https://mon.example.com/prometheus`.
  public var base: String {
    let text = url.absoluteString
    return url.pathAndQuery == "/" ? String(text.dropLast()) : text
  }

  /// `text` for a message: a password in the user info and a query (which may carry a token)
  /// are never echoed (`https://***@prom:9090/?…`), and what remains is made safe for a
  /// terminal.
  static func shown(_ text: String) -> String {
    var shown = text
    if let query = shown.firstIndex(where: { $0 == "?" || $0 == "#" }) {
      shown = String(shown[..<query]) + "?…"
    }
    if let scheme = shown.range(of: "://") {
      let authorityEnd = shown[scheme.upperBound...].firstIndex(of: "/") ?? shown.endIndex
      if let at = shown[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
        shown.replaceSubrange(scheme.upperBound..<at, with: "***")
      }
    }
    return TerminalText.sanitize(shown, maxLength: 200)
  }

  /// Parses `url`; credentials come from the URL's user info or, when given, `credentials`
  /// (`user:password`, e.g. from an environment variable).
  ///
  /// - Throws: ``PrometheusAPIError`` when `url` is not an absolute `http` or `https` URL the
  ///   HTTP client can take (``RemoteURL``: host, port 1 to 65535, URL characters), or has a
  ///   query or fragment.
  public init(url text: String, credentials: String? = nil) throws {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let shown = Self.shown(trimmed)
    let parsed: RemoteURL
    do {
      parsed = try RemoteURL(trimmed)
    } catch {
      throw PrometheusAPIError(
        "--prometheus needs Prometheus' http:// or https:// URL, such as http://127.0.0.1:9090;"
          + " got \(shown): \(error.description).")
    }
    guard !parsed.pathAndQuery.contains("?"), !trimmed.contains("#") else {
      throw PrometheusAPIError(
        "--prometheus takes Prometheus' base URL without a query or fragment; got \(shown).")
    }
    var path = parsed.pathAndQuery
    while path.hasSuffix("/") { path.removeLast() }
    let origin =
      parsed.scheme.rawValue + "://" + (parsed.isIPv6Literal ? "[\(parsed.host)]" : parsed.host)
      + (parsed.explicitPort.map { ":\($0)" } ?? "")
    do {
      self.url = try RemoteURL(origin + (path.isEmpty ? "/" : path))
    } catch {
      throw PrometheusAPIError("--prometheus: \(shown) is not a usable URL (\(error)).")
    }
    self.credentials =
      credentials ?? parsed.userInfo.map { $0.removingPercentEncoding ?? $0 }
  }

  /// The URL of `path` (which starts with `/`) under the base, parsed again.
  ///
  /// - Throws: ``PrometheusAPIError`` when the result is not a ``RemoteURL`` (it always is for
  ///   the API's own paths).
  package func apiURL(_ path: String) throws -> RemoteURL {
    do {
      return try RemoteURL(base + path)
    } catch {
      throw PrometheusAPIError("Cannot build the request URL for \(path): \(error).")
    }
  }

  /// The longest query form sent in a GET's URL; a longer one (a page of many instances) is
  /// POSTed, so it never meets a URL limit.
  public static let maximumGETForm = 4000

  /// The URL of an instant query: with the form (``queryForm(_:at:)``) as its query for a GET,
  /// or bare (`/api/v1/query`) for a POST of the form.
  package func queryURL(form: String? = nil) throws -> RemoteURL {
    try apiURL("/api/v1/query" + (form.map { "?" + $0 } ?? ""))
  }

  /// The form of an instant query for `query` evaluated at `time`
  /// (`application/x-www-form-urlencoded`).
  public func queryForm(_ query: String, at time: Date) -> String {
    "query=" + Self.encode(query) + "&time=" + String(format: "%.3f", time.timeIntervalSince1970)
  }

  /// The URL of the loaded configuration (`/api/v1/status/config`).
  package func configURL() throws -> RemoteURL { try apiURL("/api/v1/status/config") }

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
