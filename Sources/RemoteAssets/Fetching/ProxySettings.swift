import Foundation

/// One proxy server: where it is, which protocol it speaks, and its credentials if any.
///
/// The credentials are never shown: ``description`` prints `http://***@host:port` when the URL
/// carried a user name or password.
package struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
  /// How the proxy is spoken to.
  package enum Kind: String, Sendable, Hashable {
    /// An HTTP proxy: absolute-form requests for `http://`, `CONNECT` tunnels for `https://`.
    case http
    /// A SOCKS5 proxy (`socks5://` or `socks5h://`).
    case socks5
  }

  /// The protocol.
  public var kind: Kind
  /// The proxy's host name or address (IPv6 without brackets).
  public var host: String
  /// The proxy's port (1080 when the URL gives none, as curl does).
  public var port: Int
  /// The user name from the URL, percent-decoded; never log it.
  public var username: String?
  /// The password from the URL, percent-decoded; never log it.
  public var password: String?

  /// Creates a proxy.
  public init(
    kind: Kind = .http, host: String, port: Int, username: String? = nil, password: String? = nil
  ) {
    self.kind = kind
    self.host = host
    self.port = port
    self.username = username
    self.password = password
  }

  /// Parses a proxy URL the way curl reads `-x` and `HTTPS_PROXY`: `http://host:port`,
  /// `host:port` (http assumed), `socks5://host:port`, `socks5h://host:port`, with optional
  /// `user:password@` (percent-encoded).
  ///
  /// - Returns: the proxy, or a reason it cannot be used. The reason never repeats the text, which
  ///   may hold a password.
  public static func parse(_ text: String) -> Result<ProxyServer, ProxyProblem> {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty else { return .failure(ProxyProblem("is empty")) }
    let withScheme = trimmed.contains("://") ? trimmed : "http://\(trimmed)"
    guard let components = URLComponents(string: withScheme), let scheme = components.scheme,
      let host = components.host, !host.isEmpty
    else {
      return .failure(
        ProxyProblem("is not a proxy URL (use http://host:port, socks5://host:port or none)"))
    }
    let kind: Kind
    switch scheme.lowercased() {
    case "http": kind = .http
    case "socks5", "socks5h": kind = .socks5
    case "https":
      return .failure(
        ProxyProblem(
          "uses https://, a TLS connection to the proxy, which is not supported; use http://"))
    default:
      return .failure(
        ProxyProblem("has the unsupported scheme \"\(scheme)\" (use http:// or socks5://)"))
    }
    let path = components.percentEncodedPath
    if !(path.isEmpty || path == "/") || components.query != nil {
      return .failure(ProxyProblem("must be only scheme, host and port (no path)"))
    }
    let port = components.port ?? 1080
    guard (1...65535).contains(port) else {
      return .failure(ProxyProblem("has a port outside 1-65535"))
    }
    let username = components.percentEncodedUser.flatMap { $0.removingPercentEncoding }
    let password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
    if kind == .socks5, username != nil || password != nil {
      return .failure(ProxyProblem("has credentials, which a socks5:// proxy cannot use here"))
    }
    let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    // The host goes to the HTTP client's socket code: the same checks as any URL it is handed.
    let shown = bare.contains(":") ? "[\(bare)]" : bare
    guard (try? RemoteURL("http://\(shown):\(port)/")) != nil else {
      return .failure(ProxyProblem("has a host that is not a valid name or IP address"))
    }
    return .success(
      ProxyServer(
        kind: kind, host: bare, port: port, username: username.flatMap { $0.isEmpty ? nil : $0 },
        password: password))
  }

  /// Whether the URL carried a user name or password.
  public var hasCredentials: Bool { username != nil || password != nil }

  /// `http://host:port`, with `***@` in place of any credentials.
  public var description: String {
    let shownHost = host.contains(":") ? "[\(host)]" : host
    return
      "\(kind == .http ? "http" : "socks5")://\(hasCredentials ? "***@" : "")\(shownHost):\(port)"
  }
}

/// Why a proxy setting cannot be used, in words that never repeat the setting (it may hold a
/// password).
package struct ProxyProblem: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong, to follow the setting's name ("HTTPS_PROXY is not a proxy URL ...").
  public var message: String
  /// Creates a problem.
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// An asset's proxy choice, from its config's `"proxy"` field.
package enum ProxySetting: Sendable, Hashable {
  /// Follow `HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY` / `NO_PROXY` (the default).
  case environment
  /// Never use a proxy (`"proxy": "none"`).
  case direct
  /// Use this proxy (`NO_PROXY` still applies, as with curl's `-x`).
  case server(ProxyServer)
}
