/// A small, strict JSON parser (RFC 8259) for TUF metadata: no floats or exponents (refused),
/// integers within Int64, strings validated as UTF-8 with their escapes decoded exactly, duplicate
/// object keys refused (so a signed object cannot say two things), nesting bounded, and nothing
/// but whitespace after the value. It works on the bytes directly: no Foundation, no
/// JSONSerialization, linear time.
///
/// Why a reader of its own beside ``JSONScanner`` and ``LocatedJSON``: signed metadata needs the
/// whole tree (``JSONValue``) to write it again canonically (``CanonicalJSON``), and it must
/// refuse what the others take (floats, duplicate keys); its errors name a byte offset. Strings
/// are read with the same pieces as theirs (``JSONUnescape``).
package struct JSONParser {
  /// Why a document is not JSON this parser accepts; `offset` is the byte where it went wrong.
  package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String
    package var offset: Int
    package var description: String { "\(reason) at byte \(offset)" }
  }

  /// Deeper nesting is refused (TUF metadata nests about 6 levels).
  package static let maxDepth = 64

  private let bytes: UnsafeBufferPointer<UInt8>
  private var index = 0

  private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  /// Parses a whole document.
  package static func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> JSONValue {
    let array = Array(bytes)
    let result: Result<JSONValue, Failure> = array.withUnsafeBufferPointer { buffer in
      var parser = JSONParser(buffer)
      do throws(Failure) {
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index != buffer.count { throw parser.failure("trailing data after the value") }
        return .success(value)
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  private func failure(_ reason: String) -> Failure { Failure(reason: reason, offset: index) }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  private mutating func parseValue(depth: Int) throws(Failure) -> JSONValue {
    guard index < bytes.count else { throw failure("unexpected end of data") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return .integer(try parseInteger())
    default:
      throw failure("unexpected character")
    }
  }

  private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
    let count = literal.utf8CodeUnitCount
    guard index + count <= bytes.count else { throw failure("unexpected end of data") }
    let start = literal.utf8Start
    for i in 0..<count where bytes[index + i] != start[i] { throw failure("unexpected character") }
    index += count
  }

  private mutating func parseInteger() throws(Failure) -> Int64 {
    let start = index
    var negative = false
    if bytes[index] == UInt8(ascii: "-") {
      negative = true
      index += 1
    }
    guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
      throw failure("a number needs a digit")
    }
    if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count,
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index + 1])
    {
      throw failure("a number cannot have a leading zero")
    }
    // Accumulated as a negative number so Int64.min fits.
    var value: Int64 = 0
    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      let digit = Int64(bytes[index] - UInt8(ascii: "0"))
      let (m, o1) = value.multipliedReportingOverflow(by: 10)
      let (s, o2) = m.subtractingReportingOverflow(digit)
      if o1 || o2 {
        index = start
        throw failure("an integer outside the 64-bit range")
      }
      value = s
      index += 1
    }
    if index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
        throw failure("a floating-point number (TUF metadata has none)")
      default: break
      }
    }
    if negative { return value }
    guard value != Int64.min else {
      index = start
      throw failure("an integer outside the 64-bit range")
    }
    return -value
  }

  private mutating func parseString() throws(Failure) -> String {
    index += 1  // the opening quote
    let start = index
    // Fast path: no escapes, so the string is the bytes between the quotes.
    while index < bytes.count {
      let b = bytes[index]
      if b == UInt8(ascii: "\"") {
        let slice = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        guard let s = JSONUnescape.string(utf8: slice, ascii: false) else {
          index = start
          throw failure("a string that is not valid UTF-8")
        }
        index += 1
        return s
      }
      if b == UInt8(ascii: "\\") { break }
      if b < 0x20 { throw failure("a control character inside a string") }
      index += 1
    }
    // Slow path: decode escapes into a byte buffer, then validate it.
    var out = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
    while index < bytes.count {
      let b = bytes[index]
      if b == UInt8(ascii: "\"") {
        index += 1
        guard let s = out.withUnsafeBytes({ JSONUnescape.string(utf8: $0, ascii: false) }) else {
          throw failure("a string that is not valid UTF-8")
        }
        return s
      }
      if b < 0x20 { throw failure("a control character inside a string") }
      if b != UInt8(ascii: "\\") {
        out.append(b)
        index += 1
        continue
      }
      index += 1
      guard index < bytes.count else { break }
      let e = bytes[index]
      index += 1
      if let byte = JSONUnescape.simple(e) {
        out.append(byte)
      } else if e == UInt8(ascii: "u") {
        do throws(JSONUnescape.EscapeFailure) {
          JSONUnescape.appendUTF8(try JSONUnescape.unicodeScalar(in: bytes, at: &index), to: &out)
        } catch {
          switch error {
          case .short: throw failure("a short \\u escape")
          case .notHex(let at):
            index = at
            throw failure("a bad hex digit in a \\u escape")
          case .loneLow, .loneHigh, .notLow: throw failure("a lone UTF-16 surrogate in a string")
          }
        }
      } else {
        throw failure("an invalid escape in a string")
      }
    }
    throw failure("an unterminated string")
  }

  private mutating func parseArray(depth: Int) throws(Failure) -> JSONValue {
    guard depth <= Self.maxDepth else { throw failure("nesting deeper than \(Self.maxDepth)") }
    index += 1
    var items: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(items)
    }
    while true {
      skipWhitespace()
      items.append(try parseValue(depth: depth))
      skipWhitespace()
      guard index < bytes.count else { throw failure("an unterminated array") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      if bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(items)
      }
      throw failure("expected , or ] in an array")
    }
  }

  private mutating func parseObject(depth: Int) throws(Failure) -> JSONValue {
    guard depth <= Self.maxDepth else { throw failure("nesting deeper than \(Self.maxDepth)") }
    index += 1
    var members: [String: JSONValue] = [:]
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw failure("expected a string key in an object")
      }
      let keyOffset = index
      let key = try parseString()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
        throw failure("expected : after an object key")
      }
      index += 1
      skipWhitespace()
      let value = try parseValue(depth: depth)
      // Swift compares strings by canonical equivalence, so two keys that differ only in
      // Unicode normalization count as duplicates too: refused, never silently merged.
      if members.updateValue(value, forKey: key) != nil {
        throw Failure(reason: "a duplicate object key", offset: keyOffset)
      }
      skipWhitespace()
      guard index < bytes.count else { throw failure("an unterminated object") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      if bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      }
      throw failure("expected , or } in an object")
    }
  }
}
