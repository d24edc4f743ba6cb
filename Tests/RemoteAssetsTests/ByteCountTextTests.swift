import AssetModel
import Foundation
import Testing

/// Byte counts as people read them: bytes, then one decimal below ten units, whole units above.
@Suite struct ByteCountTextTests {
  @Test func unitsAndPrecision() {
    #expect(ByteCountText.format(0) == "0 B")
    #expect(ByteCountText.format(1023) == "1023 B")
    #expect(ByteCountText.format(1024) == "1.0 KiB")
    #expect(ByteCountText.format(1536) == "1.5 KiB")
    #expect(ByteCountText.format(10 * 1024) == "10 KiB")
    #expect(ByteCountText.format(1_181_116) == "1.1 MiB")
    #expect(ByteCountText.format(5 << 40) == "5.0 TiB")
    #expect(ByteCountText.format(2048 << 40) == "2048 TiB")
  }

  /// The one decimal rounds as `%.1f` does (half to even on the exact value): 1.25 KiB is
  /// "1.2", 1.75 KiB "1.8". Checked against `String(format:)` across every 1/256 KiB and MiB
  /// step below ten units, where the ties are.
  @Test func theDecimalRoundsAsPrintfDoes() {
    for unit: Int64 in [1024, 1 << 20] {
      for step in Int64(256)..<2548 {  // 1.0 to 9.949 units
        let bytes = step * unit / 256
        let value = Double(bytes) / Double(unit)
        let name = unit == 1024 ? "KiB" : "MiB"
        #expect(ByteCountText.format(bytes) == String(format: "%.1f", value) + " " + name)
      }
    }
    #expect(ByteCountText.format(1280) == "1.2 KiB")
    #expect(ByteCountText.format(1792) == "1.8 KiB")
  }
}
