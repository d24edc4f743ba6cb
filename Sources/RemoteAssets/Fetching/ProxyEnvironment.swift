import Foundation

/// The proxy variables of an environment, and which proxy (if any) a URL goes through.
///
/// Follows curl: `https_proxy`/`HTTPS_PROXY` for `https://`, `http_proxy` for `http://`,
/// `all_proxy`/`ALL_PROXY` for both when the scheme's own variable is unset; lowercase wins over
/// uppercase; empty counts as unset. `NO_PROXY` (either case) lists hosts that go direct: `*`
/// alone matches everything; a name matches itself and its subdomains (`example.com` and
/// `.example.com` both match `www.example.com`, not `notexample.com`); an IP address matches
/// itself, or a network in CIDR form (`10.0.0.0/8`, `fd00::/8`). Loopback is proxied like any
/// other host unless `NO_PROXY` names it, as curl does.
///
/// Two departures from curl, both supersets: uppercase `HTTP_PROXY` is honoured too, except
/// when `REQUEST_METHOD` is set (a CGI process, where `HTTP_PROXY` could come from a request's
/// `Proxy:` header: the "httpoxy" attack curl avoids by ignoring it always); and a `NO_PROXY`
/// entry may name a port (`host:8443`, `[::1]:8080`), matching only that port.
package struct ProxyEnvironment: Sendable, Hashable {
  /// The proxy for `http://` URLs, as written.
  public var httpProxy: String?
  /// The proxy for `https://` URLs, as written.
  public var httpsProxy: String?
  /// The proxy for any scheme without its own variable, as written.
  public var allProxy: String?
  /// The `NO_PROXY` list, as written.
  public var noProxy: String?

  /// Reads the variables from an environment (pass `ProcessInfo.processInfo.environment` in an
  /// app; tests pass their own dictionary).
  public init(_ environment: [String: String]) {
    func first(_ names: String...) -> String? {
      for name in names {
        if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
          return value
        }
      }
      return nil
    }
    let isCGI = environment["REQUEST_METHOD"] != nil
    httpProxy = isCGI ? first("http_proxy") : first("http_proxy", "HTTP_PROXY")
    httpsProxy = first("https_proxy", "HTTPS_PROXY")
    allProxy = first("all_proxy", "ALL_PROXY")
    noProxy = first("no_proxy", "NO_PROXY")
  }

  /// The proxy `url` goes through under `setting`, or nil for a direct connection.
  ///
  /// - Throws: ``ProxyProblem`` naming the variable whose value is not a usable proxy URL (its
  ///   value is never repeated).
  public func proxy(for url: URL, setting: ProxySetting = .environment) throws(ProxyProblem)
    -> ProxyServer?
  {
    let scheme = url.scheme?.lowercased() ?? ""
    guard scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
      return nil
    }
    let port = url.port ?? (scheme == "https" ? 443 : 80)
    switch setting {
    case .direct:
      return nil
    case .server(let server):
      return bypasses(host: host, port: port) ? nil : server
    case .environment:
      let candidates: [(String, String?)] =
        scheme == "https"
        ? [("HTTPS_PROXY", httpsProxy), ("ALL_PROXY", allProxy)]
        : [("HTTP_PROXY", httpProxy), ("ALL_PROXY", allProxy)]
      guard let (name, value) = candidates.first(where: { $0.1 != nil }), let value else {
        return nil
      }
      if bypasses(host: host, port: port) { return nil }
      switch ProxyServer.parse(value) {
      case .success(let server): return server
      case .failure(let problem): throw ProxyProblem("\(name) \(problem.message)")
      }
    }
  }

  /// Whether `NO_PROXY` sends `host:port` direct.
  public func bypasses(host: String, port: Int) -> Bool {
    guard let noProxy else { return false }
    if noProxy == "*" { return true }
    let name = Self.normalize(host)
    let separators = CharacterSet(charactersIn: ", \t")
    for token in noProxy.components(separatedBy: separators) where !token.isEmpty {
      if Self.matches(entry: token, host: name, port: port) { return true }
    }
    return false
  }

  /// Lowercased, without IPv6 brackets or a trailing dot.
  static func normalize(_ host: String) -> String {
    var h = host.lowercased()
    if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
    if h.hasSuffix(".") { h.removeLast() }
    return h
  }

  /// One `NO_PROXY` entry against a normalized host.
  static func matches(entry raw: String, host: String, port: Int) -> Bool {
    var entry = raw.lowercased()
    var entryPort: Int?
    // A port: `name:443`, `1.2.3.4:443` or `[::1]:443` (a bare IPv6 address has several colons).
    if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
      let inside = String(entry[entry.index(after: entry.startIndex)..<close])
      let rest = entry[entry.index(after: close)...]
      if rest.hasPrefix(":") {
        guard let p = Int(rest.dropFirst()) else { return false }
        entryPort = p
        entry = inside
      } else if rest.isEmpty || rest.hasPrefix("/") {
        entry = inside + rest
      } else {
        return false
      }
    } else if entry.filter({ $0 == ":" }).count == 1, let colon = entry.lastIndex(of: ":") {
      guard let p = Int(entry[entry.index(after: colon)...]) else { return false }
      entryPort = p
      entry = String(entry[..<colon])
    }
    if let entryPort, entryPort != port { return false }

    if let hostAddress = IPAddress(host) {
      var network = entry
      var bits: Int?
      if let slash = entry.firstIndex(of: "/") {
        guard let b = Int(entry[entry.index(after: slash)...]) else { return false }
        bits = b
        network = String(entry[..<slash])
      }
      guard let networkAddress = IPAddress(network) else { return false }
      return hostAddress.isIn(networkAddress, prefixBits: bits)
    }
    if entry.hasPrefix("*.") { entry.removeFirst(2) }
    if entry.hasPrefix(".") { entry.removeFirst() }
    if entry.hasSuffix(".") { entry.removeLast() }
    guard !entry.isEmpty else { return false }
    return host == entry || host.hasSuffix(".\(entry)")
  }
}

/// An IPv4 or IPv6 address as bytes, for `NO_PROXY` networks.
struct IPAddress: Equatable {
  var bytes: [UInt8]

  init?(_ text: String) {
    if let v4 = Self.parseIPv4(text) {
      bytes = v4
    } else if text.contains(":"), let v6 = Self.parseIPv6(text) {
      bytes = v6
    } else {
      return nil
    }
  }

  /// Whether this address lies in `network`/`prefixBits` (all bits when nil).
  func isIn(_ network: IPAddress, prefixBits: Int?) -> Bool {
    guard bytes.count == network.bytes.count else { return false }
    let total = bytes.count * 8
    let bits = prefixBits ?? total
    guard bits >= 0, bits <= total else { return false }
    for i in 0..<bytes.count {
      let remaining = bits - i * 8
      if remaining <= 0 { break }
      let mask: UInt8 = remaining >= 8 ? 0xFF : UInt8(0xFF) << UInt8(8 - remaining)
      if bytes[i] & mask != network.bytes[i] & mask { return false }
    }
    return true
  }

  static func parseIPv4(_ text: String) -> [UInt8]? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4 else { return nil }
    var out: [UInt8] = []
    for part in parts {
      guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }),
        let value = UInt8(part)
      else { return nil }
      out.append(value)
    }
    return out
  }

  static func parseIPv6(_ text: String) -> [UInt8]? {
    var address = in6_addr()
    guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
    return withUnsafeBytes(of: &address) { Array($0) }
  }
}
