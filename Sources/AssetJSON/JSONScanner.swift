/// A strict pull scanner over JSON text in UTF-8, for the cache's own metadata files.
///
/// Every read returns nil (or false) when the text is not exactly what the caller expects: a
/// value of another type, a number in a form other than the plainest one for its type, a string
/// with a lone surrogate or bytes that are not UTF-8, nesting deeper than ``maximumDepth``. The
/// callers then give up and let Foundation's `JSONDecoder` decide, so this scanner only ever
/// has to be right about the documents it accepts; it never has to reproduce the decoder's
/// errors or its leniencies.
///
/// It reads from a buffer it does not own: use it only inside the `withUnsafeBytes` closure
/// that provided the buffer.
///
/// Why a reader of its own beside ``JSONParser`` and ``LocatedJSON``: it builds no tree and
/// copies no string it does not return, so the cache's thousands of entry files read at start
/// cost one pass each; its caller knows the shape it expects and pulls exactly that. It shares
/// their string pieces (``JSONUnescape``), not their errors: it has none to give.
///
/// Its members are `@inlinable`: its callers (the entry codec) are in another module, and
/// inlining keeps the per-byte loops as cheap as when they were in one.
package struct JSONScanner {
  /// Containers nested deeper than this are left to the fallback decoder.
  package static let maximumDepth = 64

  @usableFromInline let bytes: UnsafeRawBufferPointer
  @usableFromInline var at = 0

  /// A scanner at the start of `bytes`.
  @inlinable
  package init(_ bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  // MARK: - Structure

  /// Skips JSON whitespace.
  @inlinable
  package mutating func skipSpace() {
    while at < bytes.count {
      switch bytes[at] {
      case 0x20, 0x09, 0x0A, 0x0D: at += 1
      default: return
      }
    }
  }

  /// Whether only whitespace is left.
  @inlinable
  package mutating func isAtEnd() -> Bool {
    skipSpace()
    return at == bytes.count
  }

  /// Consumes `byte` after any whitespace; false (nothing consumed) when something else is next.
  @inlinable
  package mutating func consume(_ byte: UInt8) -> Bool {
    skipSpace()
    guard at < bytes.count, bytes[at] == byte else { return false }
    at += 1
    return true
  }

  /// Consumes a `null` literal when one is next.
  @inlinable
  package mutating func consumeNull() -> Bool { literal("null") }

  /// Reads an object, calling `member` with the scanner positioned at each member's value.
  /// `member` must consume the value and return true, or return false to give up.
  ///
  /// - Returns: false when the text is not an object of that shape.
  @inlinable
  package mutating func object(_ member: (inout JSONScanner, String) -> Bool) -> Bool {
    guard consume(0x7B) else { return false }
    if consume(0x7D) { return true }
    while true {
      skipSpace()
      guard let key = string(), consume(0x3A), member(&self, key) else { return false }
      if consume(0x2C) { continue }
      return consume(0x7D)
    }
  }

  /// Reads an array, calling `element` with the scanner positioned at each element.
  ///
  /// - Returns: false when the text is not an array or `element` gave up.
  @inlinable
  package mutating func array(_ element: (inout JSONScanner) -> Bool) -> Bool {
    guard consume(0x5B) else { return false }
    if consume(0x5D) { return true }
    while true {
      guard element(&self) else { return false }
      if consume(0x2C) { continue }
      return consume(0x5D)
    }
  }

  /// Skips one value of any type, checking that it is well-formed JSON, without building the
  /// strings it passes (member names included). With `finiteNumbers`, a number must also be
  /// finite as a `Double` (Foundation refuses `1e400`).
  ///
  /// - Returns: false when it is not (or is nested too deep).
  @inlinable
  package mutating func skipValue(depth: Int = 0, finiteNumbers: Bool = false) -> Bool {
    guard depth < Self.maximumDepth else { return false }
    skipSpace()
    guard at < bytes.count else { return false }
    switch bytes[at] {
    case 0x7B:
      at += 1
      if consume(0x7D) { return true }
      while true {
        skipSpace()
        guard skipString(), consume(0x3A),
          skipValue(depth: depth + 1, finiteNumbers: finiteNumbers)
        else { return false }
        if consume(0x2C) { continue }
        return consume(0x7D)
      }
    case 0x5B: return array { $0.skipValue(depth: depth + 1, finiteNumbers: finiteNumbers) }
    case 0x22: return skipString()
    case 0x74: return literal("true")
    case 0x66: return literal("false")
    case 0x6E: return literal("null")
    default: return finiteNumbers ? skipFiniteNumber() : numberText() != nil
    }
  }

  /// Skips a string at the position. Printable ASCII without escapes is passed in place; any
  /// other string is read by ``string()``, which checks its escapes and its UTF-8.
  @inlinable
  mutating func skipString() -> Bool {
    guard at < bytes.count, bytes[at] == 0x22 else { return false }
    var end = at + 1
    while end < bytes.count {
      let byte = bytes[end]
      if byte == 0x22 {
        at = end + 1
        return true
      }
      guard byte >= 0x20, byte < 0x80, byte != 0x5C else { return string() != nil }
      end += 1
    }
    return false
  }

  /// Skips a number in strict JSON grammar whose value is finite as a `Double`. Without an
  /// exponent and with at most 300 integer digits it is below 1e300, so finite; any other is
  /// converted to be sure.
  @inlinable
  mutating func skipFiniteNumber() -> Bool {
    var i = at
    if i < bytes.count, bytes[i] == 0x2D { i += 1 }
    let intStart = i
    while i < bytes.count, bytes[i] &- 0x30 < 10 { i += 1 }
    let intDigits = i - intStart
    guard intDigits > 0, !(bytes[intStart] == 0x30 && intDigits > 1) else { return false }
    if i < bytes.count, bytes[i] == 0x2E {
      i += 1
      let fraction = i
      while i < bytes.count, bytes[i] &- 0x30 < 10 { i += 1 }
      guard i > fraction else { return false }
    }
    let exponent = i < bytes.count && (bytes[i] == 0x65 || bytes[i] == 0x45)
    if exponent || intDigits > 300 {
      guard let text = numberText(), let value = Double(text), value.isFinite else {
        return false
      }
      return true
    }
    at = i
    return true
  }

  // MARK: - Scalars

  /// Reads `true` or `false`.
  @inlinable
  package mutating func bool() -> Bool? {
    if literal("true") { return true }
    if literal("false") { return false }
    return nil
  }

  /// Reads a string, resolving every escape (`\uXXXX` pairs included).
  ///
  /// - Returns: nil for anything that is not a well-formed string of valid UTF-8: a raw control
  ///   character, an unknown escape, a lone surrogate, a missing closing quote.
  @inlinable
  package mutating func string() -> String? {
    skipSpace()
    guard at < bytes.count, bytes[at] == 0x22 else { return nil }
    let start = at + 1
    var end = start
    var bits: UInt8 = 0
    // The common case: no escapes, taken straight from the buffer.
    while end < bytes.count {
      let byte = bytes[end]
      bits |= byte
      if byte == 0x22 {
        at = end + 1
        return JSONUnescape.string(
          utf8: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), ascii: bits < 0x80)
      }
      if byte == 0x5C { break }
      guard byte >= 0x20 else { return nil }
      end += 1
    }
    guard end < bytes.count else { return nil }
    var text = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
    at = end
    while at < bytes.count {
      let byte = bytes[at]
      switch byte {
      case 0x22:
        at += 1
        return text.withUnsafeBytes { JSONUnescape.string(utf8: $0, ascii: bits < 0x80) }
      case 0x5C:
        guard at + 1 < bytes.count else { return nil }
        let escape = bytes[at + 1]
        at += 2
        if let byte = JSONUnescape.simple(escape) {
          text.append(byte)
        } else if escape == 0x75 {
          guard let scalar = try? JSONUnescape.unicodeScalar(in: bytes, at: &at) else {
            return nil
          }
          if !scalar.isASCII { bits |= 0x80 }
          JSONUnescape.appendUTF8(scalar, to: &text)
        } else {
          return nil
        }
      default:
        guard byte >= 0x20 else { return nil }
        bits |= byte
        text.append(byte)
        at += 1
      }
    }
    return nil
  }

  /// Reads an integer written as plain digits (`-12`, `0`), as JSONEncoder writes one.
  ///
  /// - Returns: nil for other forms (`1e3`, `1.0`, `-0`, `01`) and for values out of range.
  @inlinable
  package mutating func int64() -> Int64? {
    guard let (negative, magnitude) = plainInteger() else { return nil }
    if negative {
      guard magnitude != 0, magnitude <= UInt64(Int64.max) + 1 else { return nil }
      return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
    }
    return Int64(exactly: magnitude)
  }

  /// Reads a non-negative integer written as plain digits.
  @inlinable
  package mutating func uint64() -> UInt64? {
    guard let (negative, magnitude) = plainInteger(), !negative else { return nil }
    return magnitude
  }

  /// Reads a number as a `Double`, rounded as Foundation's decoder rounds it (correctly).
  ///
  /// - Returns: nil when it is not a JSON number or is out of `Double`'s range.
  @inlinable
  package mutating func double() -> Double? {
    let start = at
    if let (negative, magnitude) = plainInteger(), magnitude < 1 << 53 {
      // Exact: no rounding to reproduce.
      return negative ? -Double(magnitude) : Double(magnitude)
    }
    at = start
    guard let text = numberText(), let value = Double(text), value.isFinite else { return nil }
    return value
  }

  // MARK: - Pieces

  @inlinable
  mutating func literal(_ word: StaticString) -> Bool {
    skipSpace()
    let count = word.utf8CodeUnitCount
    guard at + count <= bytes.count else { return false }
    let pointer = word.utf8Start
    for i in 0..<count where bytes[at + i] != pointer[i] { return false }
    at += count
    return true
  }

  /// `-?(0|[1-9][0-9]*)` not followed by a fraction, exponent or digit; magnitude without
  /// overflow. Leaves the position after it on success.
  @inlinable
  mutating func plainInteger() -> (Bool, UInt64)? {
    skipSpace()
    var i = at
    let negative = i < bytes.count && bytes[i] == 0x2D
    if negative { i += 1 }
    let first = i
    var magnitude: UInt64 = 0
    while i < bytes.count, case let digit = bytes[i] &- 0x30, digit < 10 {
      let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
      guard !o1, !o2 else { return nil }
      magnitude = sum
      i += 1
    }
    guard i > first, !(bytes[first] == 0x30 && i - first > 1) else { return nil }
    if i < bytes.count {
      switch bytes[i] {
      case 0x2E, 0x65, 0x45: return nil
      default: break
      }
    }
    at = i
    return (negative, magnitude)
  }

  /// The text of a number in strict JSON grammar; nil (position unchanged) otherwise.
  @inlinable
  mutating func numberText() -> String? {
    skipSpace()
    var i = at
    func digits() -> Int {
      let from = i
      while i < bytes.count, bytes[i] &- 0x30 < 10 { i += 1 }
      return i - from
    }
    if i < bytes.count, bytes[i] == 0x2D { i += 1 }
    let intStart = i
    let intDigits = digits()
    guard intDigits > 0, !(bytes[intStart] == 0x30 && intDigits > 1) else { return nil }
    if i < bytes.count, bytes[i] == 0x2E {
      i += 1
      guard digits() > 0 else { return nil }
    }
    if i < bytes.count, bytes[i] == 0x65 || bytes[i] == 0x45 {
      i += 1
      if i < bytes.count, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
      guard digits() > 0 else { return nil }
    }
    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<i]), as: UTF8.self)
    at = i
    return text
  }
}
