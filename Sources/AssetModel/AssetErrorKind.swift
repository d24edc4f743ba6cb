/// What kind of failure an asset's last attempt met, as a short snake_case word.
///
/// The word is what entry files, the control protocol, `status --json` and metrics labels carry
/// (`"refused"`, `"http_status"`, ...). Decoding is lenient so files and peers from other versions
/// still read: the words older versions wrote (`"http"`, `"timeout"`, `"tooLarge"`, `"size"`,
/// `"hash"`, `"validation"`) map to their cases, and a word this version does not know reads as
/// ``other``.
public enum AssetErrorKind: String, Sendable, Hashable, CaseIterable, Codable,
  CustomStringConvertible
{
  /// The server answered with an error status (4xx, 5xx, or a status that makes no sense).
  case httpStatus = "http_status"
  /// Nothing accepted the connection (no server listening on that port).
  case refused
  /// The server (or something in between) reset the connection.
  case reset
  /// No connection, response head or body progress in time.
  case timedOut = "timed_out"
  /// The host name did not resolve.
  case dns
  /// The TLS handshake failed: an untrusted, expired or mismatched certificate, or a refused
  /// client certificate.
  case tls
  /// Any other transport failure (a proxy asking for credentials, an unreachable network).
  case network
  /// The body ended early or had no trustworthy length.
  case truncated
  /// The body exceeded `maxBytes`.
  case tooLarge = "too_large"
  /// The body's size differs from the expected size.
  case sizeMismatch = "size_mismatch"
  /// The body's SHA-256 differs from the expected one.
  case hashMismatch = "hash_mismatch"
  /// The body does not have the asset's format, or a manifest is malformed.
  case invalid
  /// A redirect was refused (loop, too many, downgrade, 304 with Location).
  case redirect
  /// A URL from the config, a manifest or a redirect is not one the HTTP client may be handed
  /// (a port outside 1-65535, a malformed host, characters a URL may not hold, too long).
  case invalidURL = "invalid_url"
  /// The local disk failed.
  case storage
  /// The configuration is wrong (a TLS file that cannot be used, say).
  case config
  /// The cached copy on disk failed its check and was discarded.
  case corrupt
  /// The asset has no remote, or its URL scheme has no fetcher.
  case unsupported
  /// The attempt was cancelled by shutdown, or overtaken by a command (drop, reset, rollback).
  case cancelled
  /// No asset has the id asked for.
  case unknownAsset = "unknown_asset"
  /// The engine was shut down before the attempt could start.
  case shutDown = "shut_down"
  /// The publisher's signed TUF metadata did not vouch for the asset: a role was refused
  /// (expired, rolled back, threshold of signatures not met), the bytes differ from the signed
  /// length and hashes, or no signed target covers the asset. Nothing unvouched is kept.
  case untrusted
  /// A word this version does not know (written by a newer version).
  case other

  /// Whether this is trouble on the way to the server (refused, reset, timed out, DNS, TLS, a
  /// cut body) rather than an answer or a local problem: worth keeping partial bytes for.
  public var isTransport: Bool {
    switch self {
    case .refused, .reset, .timedOut, .dns, .tls, .network, .truncated: true
    default: false
    }
  }

  /// Whether the answer arrived but failed the asset's checks (size, hash, format, the app's
  /// validator): the same response will fail again.
  public var isValidation: Bool {
    switch self {
    case .sizeMismatch, .hashMismatch, .invalid, .tooLarge: true
    default: false
    }
  }

  /// The kind a word names: today's words, the words older versions wrote, else ``other``.
  public init(word: String) {
    if let kind = AssetErrorKind(rawValue: word) {
      self = kind
      return
    }
    switch word {
    case "http": self = .httpStatus
    case "timeout": self = .timedOut
    case "tooLarge": self = .tooLarge
    case "size": self = .sizeMismatch
    case "hash": self = .hashMismatch
    case "validation": self = .invalid
    case "unknownAsset": self = .unknownAsset
    case "shutDown": self = .shutDown
    default: self = .other
    }
  }

  /// Decodes a word leniently (see ``init(word:)``).
  ///
  /// - Throws: `DecodingError` when the value is not a string.
  public init(from decoder: any Decoder) throws {
    self.init(word: try decoder.singleValueContainer().decode(String.self))
  }

  /// Encodes the word.
  ///
  /// - Throws: what the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  /// The word itself.
  public var description: String { rawValue }
}
