import Foundation

/// A JSON value that remembers the line it started on, so config errors can name it.
///
/// Foundation's `JSONSerialization` drops positions; config errors must say "line 12", so the
/// config is read with this small parser instead (configs are small; speed is not a concern).
indirect enum LocatedJSON: Sendable {
  case object([(key: String, value: LocatedJSON)], line: Int)
  case array([LocatedJSON], line: Int)
  case string(String, line: Int)
  case number(Double, text: String, line: Int)
  case bool(Bool, line: Int)
  case null(line: Int)

  /// The 1-based line the value starts on.
  var line: Int {
    switch self {
    case .object(_, let line), .array(_, let line), .string(_, let line), .number(_, _, let line),
      .bool(_, let line), .null(let line):
      line
    }
  }

  /// A word for the value's type, for error messages.
  var typeName: String {
    switch self {
    case .object: "an object"
    case .array: "an array"
    case .string: "a string"
    case .number: "a number"
    case .bool: "a boolean"
    case .null: "null"
    }
  }

  /// The member named `key`, for objects.
  subscript(key: String) -> LocatedJSON? {
    guard case .object(let members, _) = self else { return nil }
    return members.last(where: { $0.key == key })?.value
  }

  /// A syntax error with its position.
  struct SyntaxError: Error, Sendable {
    var message: String
    var line: Int
    var column: Int
  }

  /// Parses UTF-8 JSON text.
  ///
  /// - Throws: ``SyntaxError`` naming the line and column of the first syntax problem.
  static func parse(_ data: Data) throws(SyntaxError) -> LocatedJSON {
    var parser = Parser(bytes: Array(data))
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    if parser.index < parser.bytes.count {
      throw parser.error("unexpected text after the end of the JSON value")
    }
    return value
  }

  private struct Parser {
    func hexByte(_ b: UInt8) -> String {
      let digits = Array("0123456789ABCDEF")
      return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
    }

    let bytes: [UInt8]
    var index = 0
    var line = 1
    var lineStart = 0

    func error(_ message: String) -> SyntaxError {
      SyntaxError(message: message, line: line, column: index - lineStart + 1)
    }

    mutating func skipWhitespace() {
      while index < bytes.count {
        switch bytes[index] {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): index += 1
        case UInt8(ascii: "\n"):
          index += 1
          line += 1
          lineStart = index
        default: return
        }
      }
    }

    mutating func parseValue(depth: Int) throws(SyntaxError) -> LocatedJSON {
      guard depth < 64 else { throw error("nesting too deep") }
      skipWhitespace()
      guard index < bytes.count else { throw error("unexpected end of file") }
      let startLine = line
      switch bytes[index] {
      case UInt8(ascii: "{"): return try parseObject(depth: depth)
      case UInt8(ascii: "["): return try parseArray(depth: depth)
      case UInt8(ascii: "\""): return .string(try parseString(), line: startLine)
      case UInt8(ascii: "t"):
        try expectWord("true")
        return .bool(true, line: startLine)
      case UInt8(ascii: "f"):
        try expectWord("false")
        return .bool(false, line: startLine)
      case UInt8(ascii: "n"):
        try expectWord("null")
        return .null(line: startLine)
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
      default:
        let b = bytes[index]
        let shown =
          (0x21..<0x7F).contains(b) ? "'\(Character(UnicodeScalar(b)))'" : "byte 0x\(hexByte(b))"
        throw error("unexpected \(shown)")
      }
    }

    mutating func expectWord(_ word: String) throws(SyntaxError) {
      let w = Array(word.utf8)
      guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else {
        throw error("expected '\(word)'")
      }
      index += w.count
    }

    mutating func parseObject(depth: Int) throws(SyntaxError) -> LocatedJSON {
      let startLine = line
      index += 1
      var members: [(key: String, value: LocatedJSON)] = []
      skipWhitespace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(members, line: startLine)
      }
      while true {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
          throw error("expected a quoted member name")
        }
        let key = try parseString()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
          throw error("expected ':' after \"\(key)\"")
        }
        index += 1
        members.append((key, try parseValue(depth: depth + 1)))
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of file in an object") }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
          continue
        }
        if bytes[index] == UInt8(ascii: "}") {
          index += 1
          return .object(members, line: startLine)
        }
        throw error("expected ',' or '}'")
      }
    }

    mutating func parseArray(depth: Int) throws(SyntaxError) -> LocatedJSON {
      let startLine = line
      index += 1
      var items: [LocatedJSON] = []
      skipWhitespace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(items, line: startLine)
      }
      while true {
        items.append(try parseValue(depth: depth + 1))
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of file in an array") }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
          continue
        }
        if bytes[index] == UInt8(ascii: "]") {
          index += 1
          return .array(items, line: startLine)
        }
        throw error("expected ',' or ']'")
      }
    }

    mutating func parseString() throws(SyntaxError) -> String {
      index += 1
      var out: [UInt8] = []
      while index < bytes.count {
        let b = bytes[index]
        if b == UInt8(ascii: "\"") {
          index += 1
          guard let s = String(validating: out, as: UTF8.self) else {
            throw error("invalid UTF-8 in a string")
          }
          return s
        }
        if b < 0x20 { throw error("control character (byte 0x\(hexByte(b))) in a string") }
        if b == UInt8(ascii: "\\") {
          index += 1
          guard index < bytes.count else { break }
          let e = bytes[index]
          index += 1
          switch e {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
          case UInt8(ascii: "b"): out.append(8)
          case UInt8(ascii: "f"): out.append(12)
          case UInt8(ascii: "n"): out.append(10)
          case UInt8(ascii: "r"): out.append(13)
          case UInt8(ascii: "t"): out.append(9)
          case UInt8(ascii: "u"): out.append(contentsOf: try parseUnicodeEscape())
          default: throw error("invalid escape in a string")
          }
          continue
        }
        out.append(b)
        index += 1
      }
      throw error("unterminated string")
    }

    /// Four hexadecimal digits (exactly: no sign, no spaces).
    mutating func hex4() throws(SyntaxError) -> UInt32 {
      guard index + 4 <= bytes.count else { throw error("invalid \\u escape") }
      var v: UInt32 = 0
      for b in bytes[index..<index + 4] {
        guard let digit = Self.hexValue(b) else { throw error("invalid \\u escape") }
        v = v << 4 | digit
      }
      index += 4
      return v
    }

    static func hexValue(_ b: UInt8) -> UInt32? {
      switch b {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(b - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(b - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(b - UInt8(ascii: "A") + 10)
      default: nil
      }
    }

    /// A `\uXXXX` escape (the `\u` already read), joining a UTF-16 surrogate pair. A lone or
    /// mismatched surrogate is a syntax error, not a crash.
    mutating func parseUnicodeEscape() throws(SyntaxError) -> [UInt8] {
      var v = try hex4()
      if (0xDC00...0xDFFF).contains(v) {
        throw error("a \\u escape holds a lone low surrogate (\\u\(String(v, radix: 16)))")
      }
      if (0xD800...0xDBFF).contains(v) {
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
          bytes[index + 1] == UInt8(ascii: "u")
        else {
          throw error("a \\u escape holds a lone high surrogate (\\u\(String(v, radix: 16)))")
        }
        index += 2
        let low = try hex4()
        guard (0xDC00...0xDFFF).contains(low) else {
          throw error("a high surrogate \\u escape is not followed by a low surrogate")
        }
        v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
      }
      guard let scalar = UnicodeScalar(v) else { throw error("invalid \\u escape") }
      return Array(String(Character(scalar)).utf8)
    }

    mutating func parseNumber() throws(SyntaxError) -> LocatedJSON {
      let start = index
      let startLine = line
      while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
      let text = String(decoding: bytes[start..<index], as: UTF8.self)
      guard let value = Double(text) else { throw error("invalid number '\(text)'") }
      // 1e400 parses as infinity: no config value is that large, and infinity traps conversions.
      guard value.isFinite else { throw error("the number '\(text)' is out of range") }
      return .number(value, text: text, line: startLine)
    }
  }
}
