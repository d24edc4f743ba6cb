import AssetWatchTestKit
import Foundation

/// Mutates a JSON config at the token level (hostile numbers and strings, wrong types, deleted
/// and duplicated tokens, swaps, truncation) and at the byte level (control, high and random
/// bytes, flips, deletions), for the config fuzzer.
struct ConfigMutator {
  /// A lexical piece of the JSON text.
  struct Token {
    enum Kind { case string, number, literal, punctuation, space }
    var kind: Kind
    var bytes: [UInt8]
  }

  static let hostileNumbers = [
    "1e19", "1e300", "-1e300", "1e400", "-1", "0", "-0", "1.5", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "18446744073709551616", "1e-400", "4.9e-324",
    "1.7976931348623157e308", "65", "00", "1e", "-", "1.", "123456789012345678901234567890",
  ]

  static let hostileStrings = [
    #""\uD800\u0041""#, #""\uDC00""#, #""\uD800""#, #""\u001b[31mred""#, #""\u001b]0;t\u0007""#,
    #""infB""#, #""1e30GiB""#, #""1e17s""#, #""inf""#, #""nan""#, #""-5s""#, #""0x10""#, #""""#,
    #""1e400s""#, #""1e19""#, #""9223372036854775807B""#, #""${NOPE}""#, #""${X:-\u0001}""#,
    #""${""#, #""file://\u0000x""#, #""http://[::1""#, #""\u0000""#, #""\u202e\u200f""#,
    #""live""#, #""manual""#, #""server""#, #""64MiB""#, #""250ms""#, #""../../etc/passwd""#,
    #""http://127.0.0.1:1/x""#, #""https://""#, #""ftp://x""#, #""\ud83d\ude00""#,
    "\"" + String(repeating: "x", count: 3000) + "\"",
  ]

  static let wrongTypes = [
    "true", "false", "null", "[]", "{}", "[1, \"a\"]", "{\"a\": 1}", "0", "\"x\"",
  ]

  static let hostileBytes: [UInt8] = [
    0x00, 0x01, 0x07, 0x08, 0x09, 0x0A, 0x0D, 0x1B, 0x1F, 0x22, 0x2C, 0x3A, 0x5B, 0x5C, 0x5D, 0x7B,
    0x7D, 0x7F, 0x80, 0x9B, 0xC0, 0xC3, 0xE2, 0xED, 0xEF, 0xF4, 0xF8, 0xFE, 0xFF,
  ]

  var random: SplitMix64

  /// Splits JSON-ish bytes into tokens; anything unexpected becomes a one-byte punctuation token.
  static func tokenize(_ bytes: [UInt8]) -> [Token] {
    var tokens: [Token] = []
    var i = 0
    while i < bytes.count {
      let b = bytes[i]
      var j = i + 1
      let kind: Token.Kind
      switch b {
      case UInt8(ascii: "\""):
        while j < bytes.count, bytes[j] != UInt8(ascii: "\"") {
          j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1
        }
        j = min(j + 1, bytes.count)
        kind = .string
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        while j < bytes.count, "+-0123456789.eE".utf8.contains(bytes[j]) { j += 1 }
        kind = .number
      case UInt8(ascii: "a")...UInt8(ascii: "z"):
        while j < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[j]) { j += 1 }
        kind = .literal
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
        while j < bytes.count, " \n\t\r".utf8.contains(bytes[j]) { j += 1 }
        kind = .space
      default:
        kind = .punctuation
      }
      tokens.append(Token(kind: kind, bytes: Array(bytes[i..<j])))
      i = j
    }
    return tokens
  }

  /// One to three mutations of `original`.
  mutating func mutate(_ original: [UInt8]) -> [UInt8] {
    var bytes = original
    for _ in 0..<Int.random(in: 1...3, using: &random) {
      bytes = Bool.random(using: &random) ? mutateTokens(bytes) : mutateBytes(bytes)
    }
    return bytes
  }

  mutating func pick<T>(_ items: [T]) -> T {
    items[Int.random(in: 0..<items.count, using: &random)]
  }

  mutating func mutateTokens(_ bytes: [UInt8]) -> [UInt8] {
    var tokens = Self.tokenize(bytes)
    let meaningful = tokens.indices.filter { tokens[$0].kind != .space }
    guard !meaningful.isEmpty else { return bytes }
    let i = pick(meaningful)
    switch Int.random(in: 0..<8, using: &random) {
    case 0:  // a hostile number where a number (or anything) was
      let candidates = meaningful.filter { tokens[$0].kind == .number }
      tokens[candidates.isEmpty ? i : pick(candidates)].bytes = Array(
        pick(Self.hostileNumbers).utf8)
    case 1:  // a hostile string where a string was (keys included)
      let candidates = meaningful.filter { tokens[$0].kind == .string }
      tokens[candidates.isEmpty ? i : pick(candidates)].bytes = Array(
        pick(Self.hostileStrings).utf8)
    case 2:  // a value of the wrong type
      let values = meaningful.filter { tokens[$0].kind != .punctuation }
      tokens[values.isEmpty ? i : pick(values)].bytes = Array(pick(Self.wrongTypes).utf8)
    case 3:  // delete a token
      tokens.remove(at: i)
    case 4:  // duplicate a token, or a "key": value, pair
      if tokens[i].kind == .string, i + 4 < tokens.count {
        let pair = Array(tokens[i..<min(i + 6, tokens.count)])
        tokens.insert(contentsOf: pair, at: i)
      } else {
        tokens.insert(tokens[i], at: i)
      }
    case 5:  // swap two tokens
      tokens.swapAt(i, pick(meaningful))
    case 6:  // a unicode escape inside a string
      let strings = meaningful.filter { tokens[$0].kind == .string && tokens[$0].bytes.count >= 2 }
      if let s = strings.isEmpty ? nil : pick(strings) {
        let escapes = [
          #"\u001b"#, #"\u0000"#, #"\uD800"#, #"\uDFFF"#, #"\u202E"#, #"\u200F"#, #"\uFEFF"#,
          #"\u0085"#, #"\u009b"#, #"\"#, #"\x"#, #"\u12"#, #"\u+041"#,
        ]
        let at = Int.random(in: 1..<tokens[s].bytes.count, using: &random)
        tokens[s].bytes.insert(contentsOf: Array(pick(escapes).utf8), at: at)
      }
    default:  // truncate
      tokens.removeSubrange(i...)
    }
    return tokens.flatMap(\.bytes)
  }

  mutating func mutateBytes(_ bytes: [UInt8]) -> [UInt8] {
    var bytes = bytes
    guard !bytes.isEmpty else { return [pick(Self.hostileBytes)] }
    let at = Int.random(in: 0..<bytes.count, using: &random)
    switch Int.random(in: 0..<5, using: &random) {
    case 0: bytes.insert(pick(Self.hostileBytes), at: at)
    case 1: bytes[at] = pick(Self.hostileBytes)
    case 2: bytes[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
    case 3: bytes.remove(at: at)
    default: bytes.removeSubrange(at...)
    }
    return bytes
  }
}
