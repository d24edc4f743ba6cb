import Foundation

/// Why a refresh failed, in a form the scheduler (retry or not) and the UI (plain words) can use.
///
/// A struct around a kind, so new kinds can be added without breaking users (hummingbird's habit).
public struct FetchError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What kind of failure this is.
  public struct Kind: RawRepresentable, Hashable, Sendable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The server answered with an error status.
    public static let http = Kind(rawValue: "http")
    /// Connect, TLS, reset or other transport failure.
    public static let network = Kind(rawValue: "network")
    /// No response in time, or the body stalled.
    public static let timeout = Kind(rawValue: "timeout")
    /// The body ended early or had no trustworthy length.
    public static let truncated = Kind(rawValue: "truncated")
    /// The body exceeded `maxBytes`.
    public static let tooLarge = Kind(rawValue: "tooLarge")
    /// The body's size differs from the expected size.
    public static let size = Kind(rawValue: "size")
    /// The body's SHA-256 differs from the expected one.
    public static let hash = Kind(rawValue: "hash")
    /// The body does not have the asset's format.
    public static let validation = Kind(rawValue: "validation")
    /// A redirect was refused (loop, too many, downgrade, 304 with Location).
    public static let redirect = Kind(rawValue: "redirect")
    /// The local disk failed.
    public static let storage = Kind(rawValue: "storage")
    /// The asset has no remote, or its URL scheme has no fetcher.
    public static let unsupported = Kind(rawValue: "unsupported")
  }

  /// The kind.
  public var kind: Kind
  /// One readable sentence, safe for a terminal.
  public var message: String
  /// The HTTP status, for `.http`.
  public var status: Int?
  /// The server's `Retry-After`, in seconds, when it sent one.
  public var retryAfter: TimeInterval?

  /// Creates an error; `message` is sanitized.
  public init(_ kind: Kind, _ message: String, status: Int? = nil, retryAfter: TimeInterval? = nil)
  {
    self.kind = kind
    self.message = TerminalText.sanitize(message, maxLength: 300)
    self.status = status
    self.retryAfter = retryAfter
  }

  /// Whether retrying later may help (transport failures, timeouts, 408, 429, 5xx).
  public var isRetryable: Bool {
    switch kind {
    case .network, .timeout, .truncated: return true
    case .http:
      guard let status else { return false }
      return [408, 429, 500, 502, 503, 504].contains(status)
    default: return false
    }
  }

  /// Whether automatic refreshes should stop until a manual refresh (401/403).
  public var stopsAutoRefresh: Bool { kind == .http && (status == 401 || status == 403) }

  public var description: String { message }
}
