import Foundation

/// Which URLs the library fetches from: a well-formed ``RemoteURL`` (so nothing the HTTP client
/// would trap on), `https` anywhere, plain `http` only to a loopback host unless the asset sets
/// `allowInsecure`. The config reader, redirects and manifest URLs all ask this one function, so
/// they cannot drift apart.
enum RemoteURLPolicy {
  /// Why a URL is refused.
  enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a URL the HTTP client may be handed (scheme, host, port, characters, length).
    case invalid(RemoteURLError)
    /// Plain `http` to a host that is not loopback, without `allowInsecure`.
    case plainHTTPNotLoopback(host: String)

    /// The error kind an asset's `lastError` keeps for this refusal.
    var kind: AssetErrorKind {
      switch self {
      case .invalid(let error):
        if case .unsupportedScheme = error.reason { return .unsupported }
        return .invalidURL
      case .plainHTTPNotLoopback: return .redirect
      }
    }

    var description: String {
      switch self {
      case .invalid(let error): error.description
      case .plainHTTPNotLoopback(let host):
        "plain http is allowed only to loopback, not to \(TerminalText.sanitize(host, maxLength: 80))"
      }
    }
  }

  /// Parses `text` and applies the policy.
  ///
  /// - Throws: ``Refusal`` saying what is wrong.
  static func accept(_ text: String, allowInsecure: Bool) throws(Refusal) -> RemoteURL {
    let url: RemoteURL
    do {
      url = try RemoteURL(text)
    } catch {
      throw .invalid(error)
    }
    try check(url, allowInsecure: allowInsecure)
    return url
  }

  /// Applies the policy to a parsed URL.
  ///
  /// - Throws: ``Refusal/plainHTTPNotLoopback(host:)`` for plain http to a remote host.
  static func check(_ url: RemoteURL, allowInsecure: Bool) throws(Refusal) {
    if url.scheme == .http, !allowInsecure, !url.isLoopback {
      throw .plainHTTPNotLoopback(host: url.host)
    }
  }
}
