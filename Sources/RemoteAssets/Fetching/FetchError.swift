import Foundation

/// Why a refresh failed, in a form the scheduler (retry or not) and the UI (plain words) can use.
///
/// The kind is the same `AssetErrorKind` an asset's `lastError` keeps; the message is the plain
/// sentence shown to people.
public struct FetchError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What kind of failure this is: the same typed word an asset's `lastError` keeps.
  public typealias Kind = AssetErrorKind

  /// The kind.
  public var kind: Kind
  /// One readable sentence, safe for a terminal.
  public var message: String
  /// The HTTP status, for `.httpStatus`.
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
    case _ where kind.isTransport: return true
    case .httpStatus:
      guard let status else { return false }
      return [408, 429, 500, 502, 503, 504].contains(status)
    default: return false
    }
  }

  /// Whether automatic refreshes should stop until a manual refresh (401/403).
  public var stopsAutoRefresh: Bool { kind == .httpStatus && (status == 401 || status == 403) }

  public var description: String { message }
}
