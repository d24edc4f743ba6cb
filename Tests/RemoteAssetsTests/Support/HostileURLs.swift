import AssetWatchTestKit
import Foundation

/// Generated URLs of the kinds that have crashed HTTP clients or slipped past checks: ports out
/// of range or in odd forms, IPv6 literals with and without zones, user info, percent escapes,
/// huge numbers, control and non-ASCII bytes, very long text. Deterministic from a seed.
///
/// Hosts that parse are loopback (127.x, `[::1]`, `localhost`) or under `.invalid`, so nothing
/// generated sends a packet off this machine.
struct HostileURLs {
  static let schemes = ["http", "https", "HTTP", "hTtPs", "ftp", "file", "", "h ttp", "javascript"]
  static let separators = ["://", "://", "://", ":/", ":", ":///", "//"]
  static let userInfos = [
    "", "", "", "u@", "u:p@", "%zz@", "@", "u:p:q@", "a b@", "%40@", "\u{1b}@",
  ]
  static let hosts = [
    "127.0.0.1", "127.0.0.1", "[::1]", "[::1]", "localhost", "127.1.2.3",
    "[::1%25eth0]", "[fe80::1%eth0]", "[::ffff:127.0.0.1]", "[0:0:0:0:0:0:0:1]", "[::1",
    "::1", "[]", "", "[::1]]", "[:::1]", "[127.0.0.1]", "256.256.256.256.invalid",
    "x.invalid", "ex%41mple.invalid", "a..b.invalid", "-x.invalid", "\u{0}.invalid",
    "\u{7f}", "ünï.invalid", "a b.invalid", String(repeating: "a", count: 300) + ".invalid",
    "127.0.0.1\r\nX: y", "[v1.fe80::1]", "[::1]@127.0.0.1",
  ]
  static let ports = [
    "", "", "", ":", ":0", ":1", ":80", ":65535", ":65536", ":70000", ":99999", ":-1", ":+80",
    ":0x50", ":1e3", ":08080", ":000000000080", ":99999999999999999999999999999",
    ":18446744073709551616", ": 80", ":80 ", ":８０", ":4294967377", ":2147483648",
  ]
  static let paths = [
    "", "/", "/x", "/a.json", "/%", "/%zz", "/%2", "/a b", "/?q=1", "/#frag", "?q", "#f",
    "/\u{1b}[31m", "/é", "/a\\b", "/<x>", "/..%2f..%2fetc%2fpasswd", "/a?b=%00",
    "/" + String(repeating: "p", count: 9000),
  ]

  var random: SplitMix64

  init(seed: UInt64) { random = SplitMix64(seed: seed) }

  mutating func pick(_ list: [String]) -> String {
    list[Int(random.next() % UInt64(list.count))]
  }

  /// One URL: mostly assembled from hostile parts, sometimes random printable bytes.
  mutating func next() -> String {
    switch random.next() % 10 {
    case 0:
      let length = Int(random.next() % 60)
      return String(
        decoding: (0..<length).map { _ in UInt8(0x20 + random.next() % 0x5F) }, as: UTF8.self)
    case 1:
      // A port as a huge decimal.
      return "http://127.0.0.1:\(random.next())\(random.next())/x"
    default:
      return pick(Self.schemes) + pick(Self.separators) + pick(Self.userInfos) + pick(Self.hosts)
        + pick(Self.ports) + pick(Self.paths)
    }
  }

  /// `count` URLs, always starting with the ones that crashed the client before.
  static func generate(_ count: Int, seed: UInt64 = 0x0DD_0BE7) -> [String] {
    var generator = HostileURLs(seed: seed)
    let known = [
      "http://127.0.0.1:70000/x", "http://[::1]:99999/x", "http://127.0.0.1:65536/x",
      "http://[::1]:4294967377/x", "https://127.0.0.1:99999999999999999999/x",
    ]
    return known + (known.count..<max(count, known.count)).map { _ in generator.next() }
  }

  /// `text` as a JSON string literal.
  static func jsonString(_ text: String) -> String {
    let data = try! JSONSerialization.data(withJSONObject: [text], options: [])
    let array = String(decoding: data, as: UTF8.self)
    return String(array.dropFirst().dropLast())
  }
}
