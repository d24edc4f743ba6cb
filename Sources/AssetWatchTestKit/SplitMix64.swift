/// Seeded pseudo-random numbers (SplitMix64): the same seed gives the same sequence on every
/// machine, so a test or fuzzer failure can be replayed from the seed it prints.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  /// The generator's state (advanced by every ``next()``).
  public var state: UInt64

  /// A generator starting at `seed`.
  public init(seed: UInt64) { state = seed }

  /// The next 64 pseudo-random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// `count` pseudo-random bytes from `seed`: each 8 are one ``next()`` in little-endian order,
  /// the tail the low bytes of further ones.
  public static func bytes(count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { raw in
      let words = count / 8
      for i in 0..<words {
        raw.storeBytes(of: generator.next().littleEndian, toByteOffset: i * 8, as: UInt64.self)
      }
      for i in (words * 8)..<count { raw[i] = UInt8(truncatingIfNeeded: generator.next()) }
    }
    return bytes
  }
}
