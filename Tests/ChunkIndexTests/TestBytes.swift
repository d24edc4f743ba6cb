/// Seeded pseudo-random bytes (SplitMix64): the same seed always gives the same bytes.
struct TestBytes {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// `count` pseudo-random bytes.
  static func make(count: Int, seed: UInt64) -> [UInt8] {
    var generator = TestBytes(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { raw in
      let words = count / 8
      let wordPointer = raw.baseAddress!.assumingMemoryBound(to: UInt64.self)
      for i in 0..<words { wordPointer[i] = generator.next() }
      for i in (words * 8)..<count { raw[i] = UInt8(truncatingIfNeeded: generator.next()) }
    }
    return bytes
  }
}
