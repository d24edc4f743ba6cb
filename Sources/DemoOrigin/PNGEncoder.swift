import Foundation

/// Builds small, valid, uncompressed RGB PNG images in code, so the demo needs no image files.
///
/// The image data is a zlib stream of *stored* (uncompressed) deflate blocks, which every PNG
/// decoder accepts; chunk CRCs and the zlib Adler-32 are computed here.
public enum PNGEncoder {
  /// The eight bytes every PNG file starts with.
  public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  /// A `width` x `height` image whose pixel colours come from `pixel(x, y)` as (r, g, b).
  public static func image(width: Int, height: Int, pixel: (Int, Int) -> (UInt8, UInt8, UInt8))
    -> Data
  {
    precondition(width > 0 && height > 0, "a PNG needs at least one pixel")
    var raw: [UInt8] = []
    raw.reserveCapacity(height * (1 + width * 3))
    for y in 0..<height {
      raw.append(0)  // filter type None for each scanline
      for x in 0..<width {
        let (r, g, b) = pixel(x, y)
        raw += [r, g, b]
      }
    }
    var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
    header += [8, 2, 0, 0, 0]  // 8-bit depth, truecolour RGB, deflate, adaptive filter, no interlace
    var file = signature
    file += chunk("IHDR", header)
    file += chunk("IDAT", zlibStored(raw))
    file += chunk("IEND", [])
    return Data(file)
  }

  /// One chunk: length, type, data, CRC-32 of type and data.
  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    return bigEndian(UInt32(data.count)) + typeBytes + data
      + bigEndian(CRC32.checksum(typeBytes + data))
  }

  /// A zlib stream holding `data` in stored deflate blocks of at most 65535 bytes.
  static func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window, no dictionary; (0x7801 % 31 == 0)
    var offset = 0
    repeat {
      let count = min(65535, data.count - offset)
      let isFinal: UInt8 = offset + count == data.count ? 1 : 0
      let length = UInt16(count)
      out.append(isFinal)  // BFINAL bit, BTYPE 00 (stored)
      out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
      out += data[offset..<(offset + count)]
      offset += count
    } while offset < data.count
    return out + bigEndian(adler32(data))
  }

  static func adler32(_ data: [UInt8]) -> UInt32 {
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in data {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    return (b << 16) | a
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [
      UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF),
      UInt8(value & 0xFF),
    ]
  }
}
