import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An absolute `http` or `https` URL that is safe to hand to the HTTP client: a scheme the
/// client speaks, a host that is a DNS name, an IPv4 literal or an IPv6 literal (no zone), a port
/// from 1 to 65535, only URL characters, and bounded lengths.
///
/// Every URL that reaches AsyncHTTPClient (config, manifest, redirect `Location`, proxy,
/// `fleet --prometheus`) is parsed into this type first. The client traps (the whole process dies
/// with `Not enough bits to represent the passed value`) on an IP-literal host with a port above
/// 65535, so a URL from a config file or from a server must never reach it unchecked.
///
/// ```swift
/// let url = try RemoteURL("https://cdn.example.com/flags.json")
/// url.host        // "cdn.example.com"
/// url.port        // 443
/// ```
package struct RemoteURL: Sendable, Hashable, CustomStringConvertible {
  /// The two schemes the HTTP client speaks.
  package enum Scheme: String, Sendable, Hashable {
    case http
    case https

    /// The port used when the URL names none.
    package var defaultPort: Int { self == .https ? 443 : 80 }
  }

  /// The longest URL accepted, in bytes.
  package static let maximumLength = 8192
  /// The longest host accepted, in bytes (a DNS name is at most 253).
  package static let maximumHostLength = 253

  /// `http` or `https`.
  package let scheme: Scheme
  /// The host, lowercased; an IPv6 literal without its brackets.
  package let host: String
  /// The port named in the URL, if any (1 to 65535).
  package let explicitPort: Int?
  /// The path and query, starting with `/` (`/` when the URL has none); no fragment.
  package let pathAndQuery: String
  /// The user info (`user:password`) as written, percent escapes kept; nil when absent. It is
  /// never part of ``absoluteString``.
  package let userInfo: String?

  /// The port to connect to: the explicit one, else the scheme's.
  package var port: Int { explicitPort ?? scheme.defaultPort }

  /// Whether the host is an IPv6 literal.
  package var isIPv6Literal: Bool { host.utf8.contains(UInt8(ascii: ":")) }

  /// The URL without user info or fragment, in the form handed to the HTTP client. Kept from
  /// the parse: built from the parts for each use, it cost two string concatenations of every
  /// request (about 14,000 instructions).
  package let absoluteString: String

  /// `scheme://host[:port]pathAndQuery`, an IPv6 literal host in brackets.
  private static func text(_ scheme: Scheme, _ host: String, _ port: Int?, _ pathAndQuery: String)
    -> String
  {
    // Bytes, not `String.contains`: with Foundation imported that is a locale-aware search
    // (about 4,500 instructions a call).
    let literal = host.utf8.contains(UInt8(ascii: ":"))
    var text = scheme.rawValue + "://" + (literal ? "[" + host + "]" : host)
    if let port { text += ":" + String(port) }
    return text + pathAndQuery
  }

  /// `scheme://host[:port]`, for comparing origins and for messages.
  package var origin: String {
    scheme.rawValue + "://" + (isIPv6Literal ? "[" + host + "]" : host) + ":" + String(port)
  }

  /// Foundation's view of the same URL: the parse of ``absoluteString`` that `init` proved has
  /// the same scheme, host and port, kept rather than made again for each use.
  package let url: URL

  package var description: String { absoluteString }

  /// Whether the host is loopback: `localhost`, `::1`, or an IPv4 literal in 127.0.0.0/8.
  package var isLoopback: Bool { Self.isLoopback(host: host) }

  /// Parses `text`.
  ///
  /// - Throws: ``RemoteURLError`` naming what is wrong (scheme, host, port, characters, length).
  package init(_ text: String) throws(RemoteURLError) {
    let utf8 = Array(text.utf8)
    guard !utf8.isEmpty else { throw RemoteURLError(.empty) }
    guard utf8.count <= Self.maximumLength else {
      throw RemoteURLError(.tooLong(utf8.count))
    }
    if let bad = utf8.first(where: { $0 <= 0x20 || $0 >= 0x7F }) {
      throw RemoteURLError(.invalidCharacter(bad))
    }
    // scheme ":" "//"
    guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else {
      throw RemoteURLError(.notAbsolute)
    }
    let schemeText = String(decoding: utf8[..<colon], as: UTF8.self).lowercased()
    guard let scheme = Scheme(rawValue: schemeText) else {
      throw RemoteURLError(.unsupportedScheme(schemeText))
    }
    let slashes = colon + 1
    guard utf8.count >= slashes + 2, utf8[slashes] == UInt8(ascii: "/"),
      utf8[slashes + 1] == UInt8(ascii: "/")
    else { throw RemoteURLError(.notAbsolute) }
    let authorityStart = slashes + 2
    var authorityEnd = authorityStart
    authority: while authorityEnd < utf8.count {
      switch utf8[authorityEnd] {
      case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): break authority
      default: authorityEnd += 1
      }
    }
    var rest = Array(utf8[authorityEnd...])
    if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest.removeSubrange(hash...) }
    var authority = Array(utf8[authorityStart..<authorityEnd])

    var userInfo: String?
    if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
      let info = Array(authority[..<at])
      try Self.checkComponent(info, allowed: Self.userInfoCharacters)
      userInfo = String(decoding: info, as: UTF8.self)
      authority.removeSubrange(...at)
    }

    // host [":" port]
    var hostBytes: [UInt8]
    var portBytes: [UInt8]?
    if authority.first == UInt8(ascii: "[") {
      guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
        throw RemoteURLError(.invalidHost)
      }
      hostBytes = Array(authority[1..<close])
      let after = authority[(close + 1)...]
      if let first = after.first {
        guard first == UInt8(ascii: ":") else { throw RemoteURLError(.invalidHost) }
        portBytes = Array(after.dropFirst())
      }
      guard Self.isIPv6Literal(hostBytes) else { throw RemoteURLError(.invalidHost) }
    } else {
      if let colonIndex = authority.firstIndex(of: UInt8(ascii: ":")) {
        hostBytes = Array(authority[..<colonIndex])
        portBytes = Array(authority[(colonIndex + 1)...])
      } else {
        hostBytes = authority
      }
      guard !hostBytes.isEmpty else { throw RemoteURLError(.missingHost) }
      guard hostBytes.count <= Self.maximumHostLength else { throw RemoteURLError(.invalidHost) }
      guard Self.isHostName(hostBytes) else { throw RemoteURLError(.invalidHost) }
    }
    var port: Int?
    if let portBytes {
      // An empty port (`host:`) means the default, as RFC 3986 allows.
      if !portBytes.isEmpty {
        guard portBytes.count <= 5, portBytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
          let value = Int(String(decoding: portBytes, as: UTF8.self)), (1...65535).contains(value)
        else {
          throw RemoteURLError(
            .invalidPort(String(decoding: portBytes.prefix(12), as: UTF8.self)))
        }
        port = value
      }
    }
    if rest.isEmpty || rest.first == UInt8(ascii: "?") { rest.insert(UInt8(ascii: "/"), at: 0) }
    try Self.checkComponent(rest, allowed: Self.pathCharacters)

    self.scheme = scheme
    self.host = String(decoding: hostBytes, as: UTF8.self).lowercased()
    self.explicitPort = port
    self.pathAndQuery = String(decoding: rest, as: UTF8.self)
    self.userInfo = userInfo

    // What the client will parse must be what was checked.
    self.absoluteString = Self.text(scheme, host, port, pathAndQuery)
    guard let parsed = URL(string: absoluteString),
      let parsedHost = parsed.host, parsedHost.lowercased().trimmingBrackets() == host,
      parsed.port == explicitPort, parsed.scheme?.lowercased() == scheme.rawValue
    else { throw RemoteURLError(.malformed) }
    self.url = parsed
  }

  /// Resolves `reference` (a redirect's `Location`, a manifest's relative `url`) against `base`
  /// and parses the result.
  ///
  /// - Throws: ``RemoteURLError`` when the result is not a usable URL.
  package init(resolving reference: String, against base: RemoteURL) throws(RemoteURLError) {
    let trimmed = reference.trimmingWhitespace()
    guard !trimmed.isEmpty else { throw RemoteURLError(.empty) }
    guard trimmed.utf8.count <= Self.maximumLength else {
      throw RemoteURLError(.tooLong(trimmed.utf8.count))
    }
    if let bad = trimmed.utf8.first(where: { $0 <= 0x20 || $0 >= 0x7F }) {
      throw RemoteURLError(.invalidCharacter(bad))
    }
    // An absolute reference is parsed as it is, so Foundation's resolution never sees a port or
    // host it might read differently.
    if let colon = trimmed.firstIndex(of: ":"),
      trimmed[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
      trimmed.first?.isLetter == true
    {
      try self.init(trimmed)
      return
    }
    guard let resolved = URL(string: trimmed, relativeTo: base.url)?.absoluteString else {
      throw RemoteURLError(.malformed)
    }
    try self.init(resolved)
  }

  /// Whether `host` is loopback: `localhost`, `::1`, or an IPv4 literal in 127.0.0.0/8 (exactly
  /// four decimal octets, so not `127.evil.example`). Brackets around an IPv6 literal are ignored.
  package static func isLoopback(host: String) -> Bool {
    plainHostIsLoopback(host) ?? anyHostIsLoopback(host)
  }

  /// ``isLoopback(host:)`` for any text: lowercased, brackets trimmed, each dotted part parsed.
  package static func anyHostIsLoopback(_ host: String) -> Bool {
    let h = host.lowercased().trimmingBrackets()
    if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
    let octets = h.split(separator: ".", omittingEmptySubsequences: false)
    guard octets.count == 4, octets[0] == "127" else { return false }
    return octets.allSatisfy { o in
      !o.isEmpty && o.count <= 3 && o.allSatisfy(\.isASCII) && UInt8(o) != nil
    }
  }

  /// ``isLoopback(host:)`` for the common host, read in bytes: a lowercase name or dotted
  /// digits (`[a-z0-9.-]` only), the form every ``RemoteURL/host`` of a name or an IPv4 literal
  /// has. Nil for any other text (brackets, capitals, colons...), which the general reading
  /// decides. Its answers are the general reading's (tested against it): the general one split
  /// and parsed each part as text, about 11,000 instructions a host.
  package static func plainHostIsLoopback(_ host: String) -> Bool? {
    var octets = 0
    var digits = 0
    var value = 0
    var valid = true
    var name = false
    var hyphen = false
    for byte in host.utf8 {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        digits += 1
        // Past three digits the part is no octet: the value stops growing (a label of
        // twenty digits would overflow it).
        guard digits <= 3 else {
          valid = false
          continue
        }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
        if value > 255 { valid = false }
      case UInt8(ascii: "."):
        if digits == 0 || (octets == 0 && value != 127) || (octets == 0 && digits != 3) {
          valid = false
        }
        octets += 1
        digits = 0
        value = 0
      case UInt8(ascii: "a")...UInt8(ascii: "z"): name = true
      case UInt8(ascii: "-"): hyphen = true
      default: return nil
      }
    }
    // A letter makes some part no number, so only `localhost` is loopback. A hyphen without
    // one (`127.0.0.-0`, which the general reading parses as 0) is left to it.
    if name { return host == "localhost" }
    if hyphen { return nil }
    return valid && octets == 3 && digits > 0
  }

  // MARK: - Character classes

  private static let unreserved: Set<UInt8> = Set(
    Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~".utf8))
  private static let subDelimiters: Set<UInt8> = Set(Array("!$&'()*+,;=".utf8))
  private static let userInfoCharacters = unreserved.union(subDelimiters).union([
    UInt8(ascii: ":")
  ])
  private static let pathCharacters = unreserved.union(subDelimiters).union(
    Array(":@/?[]".utf8))

  /// Every byte is allowed or part of a `%HH` escape.
  private static func checkComponent(_ bytes: [UInt8], allowed: Set<UInt8>) throws(RemoteURLError) {
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "%") {
        guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2])
        else { throw RemoteURLError(.invalidEscape) }
        index += 3
        continue
      }
      guard allowed.contains(byte) else { throw RemoteURLError(.invalidCharacter(byte)) }
      index += 1
    }
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
  }

  /// A DNS name or an IPv4 literal: labels of letters, digits, `-` and `_`, 1 to 63 bytes each,
  /// separated by single dots (one trailing dot allowed).
  private static func isHostName(_ bytes: [UInt8]) -> Bool {
    var labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
    return labels.allSatisfy { label in
      !label.isEmpty && label.count <= 63
        && label.allSatisfy { byte in
          (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
            || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_")
        }
    }
  }

  /// An IPv6 address as `inet_pton` reads it (no zone identifier).
  private static func isIPv6Literal(_ bytes: [UInt8]) -> Bool {
    guard !bytes.isEmpty, bytes.count <= 45,
      bytes.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
    else { return false }
    var address = in6_addr()
    return String(decoding: bytes, as: UTF8.self).withCString {
      inet_pton(AF_INET6, $0, &address)
    } == 1
  }
}

/// Why a text is not a ``RemoteURL``.
package struct RemoteURLError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong.
  package enum Reason: Sendable, Equatable {
    /// The text is empty.
    case empty
    /// Longer than ``RemoteURL/maximumLength`` bytes.
    case tooLong(Int)
    /// A byte that may not stand in a URL (a space, a control byte, non-ASCII, `<`, ...).
    case invalidCharacter(UInt8)
    /// A `%` not followed by two hex digits.
    case invalidEscape
    /// Not of the form `scheme://host/...`.
    case notAbsolute
    /// A scheme other than `http` or `https`.
    case unsupportedScheme(String)
    /// No host.
    case missingHost
    /// A host that is not a DNS name, an IPv4 literal or an IPv6 literal without zone.
    case invalidHost
    /// A port that is not a number from 1 to 65535.
    case invalidPort(String)
    /// Foundation reads the URL differently from this parser.
    case malformed

    /// Whether the scheme is the problem (not `http` or `https`).
    package var isUnsupportedScheme: Bool {
      if case .unsupportedScheme = self { return true }
      return false
    }
  }

  /// What is wrong.
  package let reason: Reason

  /// An error for `reason`.
  package init(_ reason: Reason) { self.reason = reason }

  /// A short sentence, safe for a terminal (no text from the URL beyond sanitized fragments).
  package var description: String {
    switch reason {
    case .empty: "the URL is empty"
    case .tooLong(let count):
      "the URL is \(count) bytes long (at most \(RemoteURL.maximumLength))"
    case .invalidCharacter(let byte):
      byte < 0x20 || byte >= 0x7F
        ? "the URL contains the byte 0x\(String(byte, radix: 16, uppercase: true)), which a URL may not hold"
        : byte == 0x20
          ? "the URL contains a space"
          : "the URL contains \"\(Character(Unicode.Scalar(byte)))\", which must be percent-escaped"
    case .invalidEscape: "the URL has a % that is not followed by two hex digits"
    case .notAbsolute: "not an absolute URL (use https://host/path)"
    case .unsupportedScheme(let scheme):
      "unsupported scheme \"\(TerminalText.sanitize(scheme, maxLength: 20))\" (use https:// or http://)"
    case .missingHost: "the URL has no host"
    case .invalidHost: "the URL's host is not a valid name or IP address"
    case .invalidPort(let port):
      "the URL's port \"\(TerminalText.sanitize(port, maxLength: 12))\" is not a number from 1 to 65535"
    case .malformed: "the URL is malformed"
    }
  }
}
