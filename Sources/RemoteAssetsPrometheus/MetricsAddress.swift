/// Where the metrics endpoint listens: `HOST:PORT`, `:PORT` or `PORT` (loopback, `127.0.0.1`,
/// when no host is given), `[IPv6]:PORT` for an IPv6 address.
public struct MetricsAddress: Sendable, Equatable, CustomStringConvertible {
  /// The host or address to bind.
  public var host: String
  /// The TCP port (0: any free port).
  public var port: Int

  /// Creates an address.
  public init(host: String = "127.0.0.1", port: Int) {
    self.host = host
    self.port = port
  }

  /// Why a `--metrics` value is not an address.
  public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The value given.
    public var value: String
    /// What is wrong with it.
    public var reason: String

    /// The value, what is wrong, and an example.
    public var description: String {
      "\"\(value)\" is not HOST:PORT (\(reason)); for example 127.0.0.1:9464 or :9464"
    }
  }

  /// Parses `HOST:PORT`, `:PORT`, `PORT` or `[IPv6]:PORT`.
  ///
  /// - Throws: ``ParseError`` naming what is wrong (no port, a port out of 1…65535, an empty or
  ///   malformed host).
  public init(parsing text: String) throws {
    let shown = String(
      text.unicodeScalars.prefix(80).map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" })
    func fail(_ reason: String) -> ParseError { ParseError(value: shown, reason: reason) }
    var host = "127.0.0.1"
    let portText: Substring
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else {
        throw fail("no closing ] after the IPv6 address")
      }
      host = String(text[text.index(after: text.startIndex)..<close])
      let rest = text[text.index(after: close)...]
      guard rest.hasPrefix(":") else { throw fail("no :PORT after the IPv6 address") }
      portText = rest.dropFirst()
      if host.isEmpty { throw fail("the IPv6 address is empty") }
    } else if let colon = text.lastIndex(of: ":") {
      let hostPart = text[..<colon]
      if hostPart.contains(":") { throw fail("write an IPv6 address in brackets, [::1]:9464") }
      if !hostPart.isEmpty { host = String(hostPart) }
      portText = text[text.index(after: colon)...]
    } else {
      portText = Substring(text)
    }
    guard !portText.isEmpty else { throw fail("no port") }
    guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText),
      (1...65535).contains(port)
    else {
      throw fail("the port must be a number from 1 to 65535")
    }
    let allowed = host.unicodeScalars.allSatisfy {
      ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        || ".-:%_".unicodeScalars.contains($0)
    }
    guard allowed, host.utf8.count <= 253 else {
      throw fail("the host must be a name or an IP address")
    }
    self.init(host: host, port: port)
  }

  /// `HOST:PORT`, with brackets around an IPv6 address.
  public var description: String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
  }
}
