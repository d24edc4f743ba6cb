import DemoOrigin
import Foundation
import Testing

/// Checks of PNG and JPEG structure shared by the encoder tests and the bundled-file tests.
enum ImageChecks {
  /// Whether `data` is a PNG whose IHDR chunk has a correct CRC; returns (width, height).
  static func pngHeader(_ data: Data) -> (width: Int, height: Int)? {
    let bytes = [UInt8](data)
    guard bytes.count > 33, Array(bytes[0..<8]) == PNGEncoder.signature else { return nil }
    guard bytes[8..<16] == [0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52] else { return nil }  // length 13, "IHDR"
    let crc = bytes[29..<33].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
    guard CRC32.checksum(bytes[12..<29]) == crc else { return nil }
    let width = bytes[16..<20].reduce(0) { ($0 << 8) | Int($1) }
    let height = bytes[20..<24].reduce(0) { ($0 << 8) | Int($1) }
    return (width, height)
  }

  /// Whether `data` starts with SOI, ends with EOI and has a baseline SOF0 segment.
  static func isBaselineJPEG(_ data: Data) -> Bool {
    let bytes = [UInt8](data)
    guard bytes.count > 4, bytes.prefix(2) == [0xFF, 0xD8], bytes.suffix(2) == [0xFF, 0xD9] else {
      return false
    }
    return data.firstRange(of: Data([0xFF, 0xC0])) != nil
  }
}

@Suite("Image encoders")
struct ImageEncoderTests {
  @Test func crc32MatchesTheKnownCheckValue() {
    #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
  }

  @Test func pngHasSignatureValidIHDRAndEndChunk() throws {
    let png = PNGEncoder.image(width: 3, height: 2) { x, y in (UInt8(x * 80), UInt8(y * 120), 7) }
    let header = try #require(ImageChecks.pngHeader(png))
    #expect(header.width == 3 && header.height == 2)
    #expect(Array(png.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
  }

  @Test func bannerChangesColourEveryThirdRelease() {
    #expect(RolloutContent.banner(release: 1) == RolloutContent.banner(release: 2))
    #expect(RolloutContent.banner(release: 2) != RolloutContent.banner(release: 3))
    #expect(ImageChecks.pngHeader(RolloutContent.banner(release: 3))?.width == 64)
  }

  @Test func jpegIsBaselineWithStandardMarkers() {
    let jpeg = JPEGEncoder.flatGray(level: 96)
    #expect(ImageChecks.isBaselineJPEG(jpeg))
    #expect(jpeg.count < 256)
    #expect(JPEGEncoder.flatGray(level: 10) != jpeg)
  }
}
