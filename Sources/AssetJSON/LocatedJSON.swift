/// A JSON value that remembers the line it started on, so config errors can name it.
///
/// Foundation's `JSONSerialization` drops positions; config errors must say "line 12", so the
/// config is read with this small parser instead (configs are small; speed is not a concern).
///
/// Why a reader of its own beside ``JSONScanner`` and ``JSONParser``: it keeps every value's
/// line, names line and column in its errors, keeps members in file order (a repeated key is
/// kept twice, and ``subscript(_:)`` answers the last), and takes numbers leniently as `Double`
/// with their text, for the config reader to judge. Strings are read with the same pieces as the
/// other readers' (``JSONUnescape``).
package indirect enum LocatedJSON: Sendable {
  case object([(key: String, value: LocatedJSON)], line: Int)
  case array([LocatedJSON], line: Int)
  case string(String, line: Int)
  case number(Double, text: String, line: Int)
  case bool(Bool, line: Int)
  case null(line: Int)

  /// The 1-based line the value starts on.
  package var line: Int {
    switch self {
    case .object(_, let line), .array(_, let line), .string(_, let line), .number(_, _, let line),
      .bool(_, let line), .null(let line):
      line
    }
  }

  /// A word for the value's type, for error messages.
  package var typeName: String {
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
  package subscript(key: String) -> LocatedJSON? {
    guard case .object(let members, _) = self else { return nil }
    return members.last(where: { $0.key == key })?.value
  }

  /// A syntax error with its position.
  package struct SyntaxError: Error, Sendable {
    /// What is wrong.
    package var message: String
    /// The 1-based line of the problem.
    package var line: Int
    /// The 1-based column (in bytes) of the problem.
    package var column: Int
  }

  /// Parses UTF-8 JSON text.
  ///
  /// - Throws: ``SyntaxError`` naming the line and column of the first syntax problem.
  package static func parse(_ data: some Sequence<UInt8>) throws(SyntaxError) -> LocatedJSON {
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

    mutating func expectWord(_ word: StaticString) throws(SyntaxError) {
      let count = word.utf8CodeUnitCount
      guard index + count <= bytes.count,
        (0..<count).allSatisfy({ bytes[index + $0] == word.utf8Start[$0] })
      else {
        throw error("expected '\(word)'")
      }
      index += count
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
      // The common string (no escape, no control character) is made straight from the bytes,
      // without collecting them first; any other is read byte by byte below, from its start.
      var end = index
      var bits: UInt8 = 0
      while end < bytes.count {
        let b = bytes[end]
        if b == UInt8(ascii: "\"") {
          let start = index
          index = end + 1
          let text = bytes.withUnsafeBytes {
            JSONUnescape.string(
              utf8: UnsafeRawBufferPointer(rebasing: $0[start..<end]), ascii: bits < 0x80)
          }
          guard let text else { throw error("invalid UTF-8 in a string") }
          return text
        }
        if b == UInt8(ascii: "\\") || b < 0x20 { break }
        bits |= b
        end += 1
      }
      var out: [UInt8] = []
      while index < bytes.count {
        let b = bytes[index]
        if b == UInt8(ascii: "\"") {
          index += 1
          guard let s = out.withUnsafeBytes({ JSONUnescape.string(utf8: $0, ascii: false) }) else {
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
          if let byte = JSONUnescape.simple(e) {
            out.append(byte)
          } else if e == UInt8(ascii: "u") {
            JSONUnescape.appendUTF8(try parseUnicodeEscape(), to: &out)
          } else {
            throw error("invalid escape in a string")
          }
          continue
        }
        out.append(b)
        index += 1
      }
      throw error("unterminated string")
    }

    /// A `\uXXXX` escape (the `\u` already read), joining a UTF-16 surrogate pair. A lone or
    /// mismatched surrogate is a syntax error, not a crash.
    mutating func parseUnicodeEscape() throws(SyntaxError) -> Unicode.Scalar {
      do throws(JSONUnescape.EscapeFailure) {
        return try JSONUnescape.unicodeScalar(in: bytes, at: &index)
      } catch {
        switch error {
        case .short, .notHex: throw self.error("invalid \\u escape")
        case .loneLow(let v):
          throw self.error("a \\u escape holds a lone low surrogate (\\u\(String(v, radix: 16)))")
        case .loneHigh(let v):
          throw self.error(
            "a \\u escape holds a lone high surrogate (\\u\(String(v, radix: 16)))")
        case .notLow:
          throw self.error("a high surrogate \\u escape is not followed by a low surrogate")
        }
      }
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
