/// The 256 random 64-bit values the gear hash adds, one per byte value.
///
/// Generated once from a fixed seed with SplitMix64, so every build of every version cuts the
/// same bytes at the same places (changing the seed would change every index). Not a
/// cryptographic primitive: it only has to scatter bytes evenly over the hash's bits.
package enum GearTable {
  /// The seed the table is generated from; part of the index format (`fastcdc` version 1).
  package static let seed: UInt64 = 0x4173_7365_7457_6174  // "AssetWat"

  /// The table: entry `b` is added for byte value `b`.
  package static let values: [UInt64] = {
    var state = seed
    var table = [UInt64]()
    table.reserveCapacity(256)
    for _ in 0..<256 {
      // SplitMix64 (Steele, Lea, Flood 2014).
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      table.append(z ^ (z >> 31))
    }
    return table
  }()
}
