/// Reading JSON strings: the pieces every reader of the package shares (``JSONScanner``,
/// ``JSONParser``, ``LocatedJSON``): the one-letter escapes, `\uXXXX` escapes with their
/// UTF-16 surrogate pairs, and the check that a string's bytes are UTF-8.
///
/// The readers decode strings alike and differ only in what they say when a string is bad (the
/// scanner says nothing, the TUF parser names a byte offset, the config reader a line and
/// column), so the failures here carry what each of them needs to say it.
package enum JSONUnescape {
  /// The byte a one-letter escape stands for (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
  /// `letter` being the byte after the backslash); nil for `u` and for every other letter.
  @inlinable
  package static func simple(_ letter: UInt8) -> UInt8? {
    switch letter {
    case 0x22, 0x5C, 0x2F: letter
    case 0x62: 0x08
    case 0x66: 0x0C
    case 0x6E: 0x0A
    case 0x72: 0x0D
    case 0x74: 0x09
    default: nil
    }
  }

  /// The value of a hexadecimal digit (either case); nil for any other byte.
  @inlinable
  package static func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case 0x30...0x39: UInt32(byte - 0x30)
    case 0x41...0x46: UInt32(byte - 0x41 + 10)
    case 0x61...0x66: UInt32(byte - 0x61 + 10)
    default: nil
    }
  }

  /// Why a `\u` escape cannot be read.
  package enum EscapeFailure: Error, Equatable, Sendable {
    /// Fewer than four bytes are left for the digits.
    case short
    /// The byte at `at` is not a hexadecimal digit.
    case notHex(at: Int)
    /// A low surrogate (the value) with no high surrogate before it.
    case loneLow(UInt32)
    /// A high surrogate (the value) with no `\u` escape after it.
    case loneHigh(UInt32)
    /// A high surrogate followed by a `\u` escape that is not a low surrogate.
    case notLow
  }

  /// Reads the four hexadecimal digits of a `\u` escape at `index` (just after the `u`) and, for
  /// a high surrogate, the `\uXXXX` of its low half: the scalar they stand for.
  ///
  /// On success `index` is after the last digit. On failure it is where the group of four
  /// digits at fault starts (``EscapeFailure/short``, ``EscapeFailure/notHex(at:)``) or just
  /// after the digits of the escape at fault (the surrogate failures).
  @inlinable
  package static func unicodeScalar<Bytes: RandomAccessCollection<UInt8>>(
    in bytes: Bytes, at index: inout Int
  ) throws(EscapeFailure) -> Unicode.Scalar where Bytes.Index == Int {
    let high = try hex4(bytes, at: &index)
    switch high {
    case 0xD800..<0xDC00:
      guard index + 1 < bytes.endIndex, bytes[index] == 0x5C, bytes[index + 1] == 0x75 else {
        throw .loneHigh(high)
      }
      index += 2
      let low = try hex4(bytes, at: &index)
      guard (0xDC00..<0xE000).contains(low) else { throw .notLow }
      // A pair always makes a valid scalar (U+10000...U+10FFFF).
      return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
    case 0xDC00..<0xE000: throw .loneLow(high)
    default:
      // Below U+10000 and not a surrogate: always a valid scalar.
      return Unicode.Scalar(high)!
    }
  }

  /// Four hexadecimal digits at `index` (exactly: no sign, no spaces); `index` moves past them
  /// only on success.
  @inlinable
  static func hex4<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at index: inout Int)
    throws(EscapeFailure) -> UInt32 where Bytes.Index == Int
  {
    guard index + 4 <= bytes.endIndex else { throw .short }
    var value: UInt32 = 0
    for i in index..<index + 4 {
      guard let digit = hexValue(bytes[i]) else { throw .notHex(at: i) }
      value = value << 4 | digit
    }
    index += 4
    return value
  }

  /// Appends the UTF-8 of `scalar`.
  @inlinable
  package static func appendUTF8(_ scalar: Unicode.Scalar, to bytes: inout [UInt8]) {
    if scalar.isASCII {
      bytes.append(UInt8(scalar.value))
    } else {
      bytes.append(contentsOf: String(Character(scalar)).utf8)
    }
  }

  /// `utf8` as a string; nil when it is not valid UTF-8. `ascii`: known to be all ASCII (then
  /// there is nothing to check).
  ///
  /// (`String(validating:as:)` gives the same answers, but it is generic and looks up type
  /// metadata at run time on every call: a quarter of the cache entries' decoding time.)
  @inlinable
  package static func string(utf8: UnsafeRawBufferPointer, ascii: Bool) -> String? {
    // Bytes: binding them as UInt8 (a trivial type) is what the buffer holds anyway.
    let units = utf8.assumingMemoryBound(to: UInt8.self)
    let decoded = String(decoding: units, as: UTF8.self)
    if ascii { return decoded }
    // Decoding repairs invalid sequences with U+FFFD, which changes the bytes; valid text comes
    // back byte for byte.
    return decoded.utf8.elementsEqual(units) ? decoded : nil
  }
}
