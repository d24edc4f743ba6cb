import Foundation

/// The `Cache-Control` response directives that matter to a private cache, parsed by RFC 9111 §5.2
/// and the list and quoted-string rules of RFC 9110 §5.6.
///
/// - Several field lines are one comma-separated list.
/// - Directive names are case-insensitive; values are a token or a quoted-string (`max-age="60"`
///   is 60), with quoted-pairs unescaped. A comma or a directive name inside a quoted string
///   belongs to the value, never to the list.
/// - `delta-seconds` is one or more ASCII digits, nothing else: `a100`, `100a`, `-1`, `'60'`,
///   `1e3`, an empty value and whitespace around `=` are *invalid*, which RFC 9111 §4.2.1 asks a
///   cache to treat as stale (not as absent). Values above 2^31 are 2^31 (RFC 9111 §1.2.2);
///   leading zeros are fine.
/// - When a directive appears twice, the first occurrence counts.
/// - `s-maxage`, `proxy-revalidate`, `public` and `private` are kept but do not apply to this
///   private cache; unknown extensions are kept and ignored.
///
/// ```swift
/// let cc = CacheControl(fieldLines: ["max-age=\"3600\", must-revalidate"])
/// cc.maxAge                // .seconds(3600)
/// cc.mustRevalidate        // true
/// ```
package struct CacheControl: Sendable, Equatable {
  /// The largest delta-seconds a cache must represent; larger values become this one.
  public static let maxDeltaSeconds = 2_147_483_648

  /// One directive as written, name lowercased.
  package struct Directive: Sendable, Equatable {
    /// The directive name, lowercased.
    public var name: String
    /// The value after `=` (a quoted-string unquoted and unescaped); `nil` when none was given.
    public var value: String?
    /// Whether the directive followed the grammar (no whitespace around `=`, a closed quoted
    /// string, nothing after the value before the next comma).
    public var isWellFormed: Bool

    /// Creates a directive.
    public init(name: String, value: String?, isWellFormed: Bool = true) {
      self.name = name
      self.value = value
      self.isWellFormed = isWellFormed
    }
  }

  /// A `delta-seconds` argument.
  package enum DeltaSeconds: Sendable, Equatable {
    /// A valid number of seconds, capped at 2^31.
    case seconds(Int)
    /// Present but not digits only (or malformed around it).
    case invalid
  }

  /// Every directive in order, duplicates included.
  public var directives: [Directive]

  /// Parses the values of every `Cache-Control` field line of one response, in order.
  public init(fieldLines: [String]) {
    directives = fieldLines.flatMap { Self.parse(Array($0.utf8)) }
  }

  /// The first directive named `name` (case-insensitive).
  public func first(_ name: String) -> Directive? {
    let lowered = name.lowercased()
    return directives.first { $0.name == lowered }
  }

  /// Whether any directive named `name` is present (with or without a value).
  public func contains(_ name: String) -> Bool { first(name) != nil }

  /// `max-age`: the response's freshness lifetime; `nil` when absent.
  public var maxAge: DeltaSeconds? { deltaSeconds("max-age") }
  /// `no-cache`: the response must be revalidated before each use. The qualified form
  /// (`no-cache="Set-Cookie"`) is treated as unqualified, as RFC 9111 §5.2.2.4 allows: this cache
  /// serves bodies, and the conservative reading never serves one unvalidated.
  public var noCache: Bool { contains("no-cache") }
  /// `no-store`. An asset cache has to store to serve at all, so the engine reads it as
  /// `no-cache` (revalidate on every use).
  public var noStore: Bool { contains("no-store") }
  /// `must-revalidate`: once stale, never served without a successful revalidation.
  public var mustRevalidate: Bool { contains("must-revalidate") }
  /// `stale-while-revalidate` (RFC 5861 §3); `nil` when absent.
  public var staleWhileRevalidate: DeltaSeconds? { deltaSeconds("stale-while-revalidate") }
  /// `stale-if-error` (RFC 5861 §4); `nil` when absent.
  public var staleIfError: DeltaSeconds? { deltaSeconds("stale-if-error") }

  /// The first `name` directive read as delta-seconds.
  public func deltaSeconds(_ name: String) -> DeltaSeconds? {
    guard let directive = first(name) else { return nil }
    guard directive.isWellFormed, let value = directive.value else { return .invalid }
    return Self.deltaSeconds(value)
  }

  /// `1*DIGIT`, capped at 2^31; anything else is invalid.
  public static func deltaSeconds(_ text: String) -> DeltaSeconds {
    let utf8 = text.utf8
    guard !utf8.isEmpty, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return .invalid }
    var value = 0
    for byte in utf8 {
      value = value * 10 + Int(byte - 0x30)
      if value > maxDeltaSeconds { return .seconds(maxDeltaSeconds) }
    }
    return .seconds(value)
  }

  // MARK: - Grammar

  /// `tchar` of RFC 9110 §5.6.2.
  static func isTokenChar(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "A")...UInt8(ascii: "Z"):
      return true
    default:
      return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
  }

  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
  }

  /// Parses one field line: `#cache-directive`, tolerating empty list elements, and recovering
  /// from a malformed element at the next comma outside a quoted string.
  private static func parse(_ bytes: [UInt8]) -> [Directive] {
    var out: [Directive] = []
    var i = 0
    let comma = UInt8(ascii: ",")
    func skipWhitespace() { while i < bytes.count, isWhitespace(bytes[i]) { i += 1 } }
    /// Skips to just past the next comma that is not inside a quoted string.
    func skipElement() {
      var quoted = false
      while i < bytes.count {
        let byte = bytes[i]
        if quoted, byte == UInt8(ascii: "\\") {
          i += 2
          continue
        }
        if byte == UInt8(ascii: "\"") { quoted.toggle() }
        i += 1
        if !quoted, byte == comma { return }
      }
    }
    while i < bytes.count {
      skipWhitespace()
      if i < bytes.count, bytes[i] == comma {
        i += 1
        continue
      }
      guard i < bytes.count else { break }
      let nameStart = i
      while i < bytes.count, isTokenChar(bytes[i]) { i += 1 }
      guard i > nameStart else {
        skipElement()  // not a directive at all (a stray quote, a control byte)
        continue
      }
      let name = String(decoding: bytes[nameStart..<i], as: UTF8.self).lowercased()
      var wellFormed = true
      let afterName = i
      skipWhitespace()
      if i < bytes.count, bytes[i] == UInt8(ascii: "=") {
        if i != afterName { wellFormed = false }  // whitespace before `=`
        i += 1
        if i < bytes.count, isWhitespace(bytes[i]) { wellFormed = false }  // and after it
        skipWhitespace()
        var value: String
        if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
          let quoted = quotedString(bytes, from: &i)
          value = quoted.value
          if !quoted.closed { wellFormed = false }
        } else {
          let start = i
          while i < bytes.count, isTokenChar(bytes[i]) { i += 1 }
          value = String(decoding: bytes[start..<i], as: UTF8.self)
          if value.isEmpty { wellFormed = false }
        }
        skipWhitespace()
        if i < bytes.count, bytes[i] != comma {
          wellFormed = false  // `max-age=100 200`, `max-age=1e3`... the rest is not a list
          let start = i
          skipElement()
          value += String(decoding: bytes[start..<i], as: UTF8.self)
        } else if i < bytes.count {
          i += 1
        }
        out.append(Directive(name: name, value: value, isWellFormed: wellFormed))
      } else if i < bytes.count, bytes[i] != comma {
        // `max-age 100`: a name followed by something that is neither `=` nor a comma.
        skipElement()
        out.append(Directive(name: name, value: nil, isWellFormed: false))
      } else {
        if i < bytes.count { i += 1 }
        out.append(Directive(name: name, value: nil))
      }
    }
    return out
  }

  /// Reads a quoted-string starting at the opening quote, unescaping quoted-pairs; `closed` is
  /// false when the line ends first.
  private static func quotedString(_ bytes: [UInt8], from i: inout Int) -> (
    value: String, closed: Bool
  ) {
    var value: [UInt8] = []
    i += 1  // the opening quote
    while i < bytes.count {
      let byte = bytes[i]
      if byte == UInt8(ascii: "\\"), i + 1 < bytes.count {
        value.append(bytes[i + 1])
        i += 2
        continue
      }
      i += 1
      if byte == UInt8(ascii: "\"") { return (String(decoding: value, as: UTF8.self), true) }
      value.append(byte)
    }
    return (String(decoding: value, as: UTF8.self), false)
  }
}
