import Foundation

/// Which URLs the library fetches from: `https` anywhere, plain `http` only to a loopback host
/// unless the asset sets `allowInsecure`. The config reader, redirects and manifest URLs all ask
/// this one function, so they cannot drift apart.
enum RemoteURLPolicy {
  /// What the policy says about one URL.
  enum Verdict: Sendable, Equatable {
    /// It may be fetched.
    case allowed
    /// Plain `http` to a host that is not loopback, without `allowInsecure`.
    case plainHTTPNotLoopback
    /// A scheme other than `http` or `https` (`file://` is the config reader's own case).
    case unsupportedScheme
  }

  /// The verdict for `url`; the scheme is compared case-insensitively.
  static func check(_ url: URL, allowInsecure: Bool) -> Verdict {
    switch url.scheme?.lowercased() {
    case "https": return .allowed
    case "http":
      return allowInsecure || ConfigValues.isLoopback(host: url.host ?? "")
        ? .allowed : .plainHTTPNotLoopback
    default: return .unsupportedScheme
    }
  }
}
