import Foundation

/// Builds tiny, valid baseline JPEG images in code: one flat grey 8x8 block.
///
/// A flat block needs only a DC value, so the scan is two Huffman codes: the DC difference from
/// the standard luminance table of ITU T.81 Annex K, then end-of-block from a one-code AC table.
public enum JPEGEncoder {
  /// An 8x8 greyscale JPEG of one flat grey `level` (0 black ... 255 white), JFIF wrapped.
  public static func flatGray(level: UInt8) -> Data {
    var file: [UInt8] = [0xFF, 0xD8]  // SOI
    file += segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])  // APP0
    file += segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))  // DQT 0: all ones
    file += segment(0xC0, [8, 0, 8, 0, 8, 1, 1, 0x11, 0])  // SOF0: 8-bit, 8x8, 1 component
    file += segment(0xC4, [0x00] + dcLuminanceCounts + dcLuminanceSymbols)  // DHT DC 0
    file += segment(0xC4, [0x10] + acLuminanceCounts + [0x00])  // DHT AC 0: only EOB
    file += segment(0xDA, [1, 1, 0x00, 0, 63, 0])  // SOS
    file += scan(level: level)
    file += [0xFF, 0xD9]  // EOI
    return Data(file)
  }

  /// The entropy-coded scan: DC category and bits, then EOB, padded with 1 bits.
  private static func scan(level: UInt8) -> [UInt8] {
    // Level shift by 128, forward DCT of a flat block gives DC = 8 * (level - 128).
    let dc = 8 * (Int(level) - 128)
    var bits: [Bool] = []
    let magnitude = abs(dc)
    let category = magnitude == 0 ? 0 : Int.bitWidth - magnitude.leadingZeroBitCount
    bits += dcCode(category)
    if category > 0 {
      // Negative values are sent as the one's complement of their magnitude.
      let value = dc > 0 ? dc : dc + (1 << category) - 1
      bits += (0..<category).reversed().map { (value >> $0) & 1 == 1 }
    }
    bits.append(false)  // end of block: the only code in our AC table, "0"
    return pack(bits)
  }

  private static func pack(_ bits: [Bool]) -> [UInt8] {
    var padded = bits
    while padded.count % 8 != 0 { padded.append(true) }
    var bytes: [UInt8] = []
    for start in stride(from: 0, to: padded.count, by: 8) {
      let byte = padded[start..<(start + 8)].reduce(UInt8(0)) { ($0 << 1) | ($1 ? 1 : 0) }
      bytes.append(byte)
      if byte == 0xFF { bytes.append(0x00) }  // byte stuffing
    }
    return bytes
  }

  /// The standard DC luminance Huffman code for `category` (T.81 Table K.3).
  private static func dcCode(_ category: Int) -> [Bool] {
    let codes = [
      "00", "010", "011", "100", "101", "110", "1110", "11110", "111110", "1111110", "11111110",
      "111111110",
    ]
    return codes[category].map { $0 == "1" }
  }

  private static let dcLuminanceCounts: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
  private static let dcLuminanceSymbols: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
  private static let acLuminanceCounts: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]

  private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
    let length = payload.count + 2
    return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
  }
}
