extension JSONScanner {
  /// Whether `bytes` is one JSON document that Foundation's `JSONSerialization` also reads: any
  /// value at the top level, nesting within ``maximumDepth``, strings of valid UTF-8 with
  /// well-formed escapes, every number finite as a `Double` (Foundation refuses `1e400`).
  ///
  /// False means "not sure", never "invalid": a byte-order mark, deeper nesting, an odd form
  /// the scanner does not read all fall to the caller's Foundation check, which decides and
  /// says why. So this only has to be right about what it accepts, and it builds nothing: the
  /// common string (printable ASCII, no escape) and number (no exponent) are checked in place.
  package static func isPlainDocument(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var scanner = JSONScanner(bytes)
    return scanner.skipCheckedValue(depth: 0) && scanner.isAtEnd()
  }

  /// Skips one value as ``skipValue(depth:)`` does, but with numbers that must be finite and
  /// without building the strings it passes.
  mutating func skipCheckedValue(depth: Int) -> Bool {
    guard depth < Self.maximumDepth else { return false }
    skipSpace()
    guard at < bytes.count else { return false }
    switch bytes[at] {
    case 0x7B:
      at += 1
      if consume(0x7D) { return true }
      while true {
        skipSpace()
        guard skipString(), consume(0x3A), skipCheckedValue(depth: depth + 1) else {
          return false
        }
        if consume(0x2C) { continue }
        return consume(0x7D)
      }
    case 0x5B: return array { $0.skipCheckedValue(depth: depth + 1) }
    case 0x22: return skipString()
    case 0x74: return literal("true")
    case 0x66: return literal("false")
    case 0x6E: return literal("null")
    default: return skipFiniteNumber()
    }
  }

  /// Skips a string at the position. Printable ASCII without escapes is passed in place; any
  /// other string is read by ``string()``, which checks its escapes and its UTF-8.
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
}
