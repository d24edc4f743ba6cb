import Crypto
import NIOCore

/// Deterministic pseudo-random content of a fixed length, produced on demand from a seed.
///
/// Any byte range can be produced without producing what comes before it, so a large resource
/// can be served (and resumed with `Range`) chunk by chunk without ever being held in memory.
/// Each 8-byte word is SplitMix64 of the seed and the word's index, stored little-endian.
public struct GeneratedBytes: Sendable, Equatable {
  /// The total number of bytes.
  public let length: Int
  /// The seed that selects the content.
  public let seed: UInt64

  /// Creates generated content of `length` bytes selected by `seed`.
  public init(length: Int, seed: UInt64) {
    precondition(length >= 0, "length must not be negative")
    self.length = length
    self.seed = seed
  }

  /// Returns the bytes in `range` (clamped to the content); meant for small ranges.
  public func bytes(in range: Range<Int>) -> [UInt8] {
    let clamped = range.clamped(to: 0..<length)
    return [UInt8](unsafeUninitializedCapacity: clamped.count) { buffer, initialized in
      fill(UnsafeMutableRawBufferPointer(buffer), from: clamped.lowerBound)
      initialized = clamped.count
    }
  }

  /// Appends the bytes in `range` (clamped to the content) to `buffer`.
  func write(_ range: Range<Int>, into buffer: inout ByteBuffer) {
    let clamped = range.clamped(to: 0..<length)
    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: clamped.count) { pointer in
      fill(
        UnsafeMutableRawBufferPointer(rebasing: pointer[0..<clamped.count]),
        from: clamped.lowerBound)
      return clamped.count
    }
  }

  /// The SHA-256 of the whole content as lowercase hex, computed in 1 MiB pieces.
  public func sha256Hex() -> String {
    var hasher = SHA256()
    let piece = 1 << 20
    var offset = 0
    while offset < length {
      hasher.update(data: bytes(in: offset..<min(length, offset + piece)))
      offset += piece
    }
    return hasher.finalize().map { String(format: "%02x", $0) }.joined()
  }

  /// Fills `target` with the content starting at `offset`.
  private func fill(_ target: UnsafeMutableRawBufferPointer, from offset: Int) {
    var position = offset
    var index = 0
    while index < target.count {
      var word = Self.word(seed: seed, index: UInt64(position >> 3))
      word >>= UInt64((position & 7) * 8)
      let take = min(8 - (position & 7), target.count - index)
      for _ in 0..<take {
        target[index] = UInt8(truncatingIfNeeded: word)
        word >>= 8
        index += 1
      }
      position += take
    }
  }

  /// SplitMix64 of `seed` advanced `index` steps: a good, cheap, random-access mixer.
  private static func word(seed: UInt64, index: UInt64) -> UInt64 {
    var z = seed &+ (index &+ 1) &* 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
