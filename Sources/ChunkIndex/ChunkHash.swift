import Crypto

/// A chunk's SHA-256 as a hashable value: the 32 bytes as four big-endian `UInt64`, so hashing
/// and comparing it is four word operations.
package struct ChunkHash: Hashable, Sendable, CustomStringConvertible {
  /// Bytes 0..<8, big-endian.
  package var word0: UInt64
  /// Bytes 8..<16, big-endian.
  package var word1: UInt64
  /// Bytes 16..<24, big-endian.
  package var word2: UInt64
  /// Bytes 24..<32, big-endian.
  package var word3: UInt64

  /// The hash of a SHA-256 digest.
  package init(_ digest: SHA256.Digest) {
    var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    digest.withUnsafeBytes { raw in
      words.0 = Self.word(raw, at: 0)
      words.1 = Self.word(raw, at: 8)
      words.2 = Self.word(raw, at: 16)
      words.3 = Self.word(raw, at: 24)
    }
    (word0, word1, word2, word3) = words
  }

  /// The hash of 32 bytes (`bytes.count` must be 32).
  package init(bytes: UnsafeRawBufferPointer) {
    precondition(bytes.count == 32, "a SHA-256 is 32 bytes")
    word0 = Self.word(bytes, at: 0)
    word1 = Self.word(bytes, at: 8)
    word2 = Self.word(bytes, at: 16)
    word3 = Self.word(bytes, at: 24)
  }

  /// Parses 64 lowercase hex digits; anything else (uppercase, other length) is nil.
  package init?(hex: some StringProtocol) {
    var words: [UInt64] = [0, 0, 0, 0]
    var count = 0
    for byte in hex.utf8 {
      guard count < 64, let nibble = Self.nibble(byte) else { return nil }
      words[count / 16] = words[count / 16] << 4 | UInt64(nibble)
      count += 1
    }
    guard count == 64 else { return nil }
    (word0, word1, word2, word3) = (words[0], words[1], words[2], words[3])
  }

  /// The 64 lowercase hex digits.
  package var hex: String {
    let digits = Array("0123456789abcdef".utf8)
    return String(unsafeUninitializedCapacity: 64) { out in
      var index = 0
      for word in [word0, word1, word2, word3] {
        var shift = 60
        while shift >= 0 {
          out[index] = digits[Int((word >> UInt64(shift)) & 0xF)]
          index += 1
          shift -= 4
        }
      }
      return 64
    }
  }

  /// The hex digits.
  package var description: String { hex }

  /// The value of one lowercase hex digit, or nil.
  @inline(__always)
  static func nibble(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
    default: nil
    }
  }

  private static func word(_ raw: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
    var value: UInt64 = 0
    for i in offset..<(offset + 8) { value = value << 8 | UInt64(raw[i]) }
    return value
  }
}

extension SHA256.Digest {
  /// The digest as 64 lowercase hex digits.
  package var lowercaseHex: String { ChunkHash(self).hex }
}
