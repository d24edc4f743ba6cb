import AssetJSON
import Foundation

/// Checks that a downloaded file has its asset's format before it may be committed.
///
/// JSON and text are read whole (they are small and bounded by `maxBytes`); PNG and JPEG read only
/// their headers; binary is not read at all (size and hash are checked while streaming).
package enum FormatValidator {
  /// Validates the file at `path`.
  ///
  /// - Returns: nil when valid, else the reason in plain words.
  public static func problem(format: AssetFormat, path: String) -> String? {
    switch format {
    case .json, .text:
      guard let data = FileManager.default.contents(atPath: path) else {
        return "the download cannot be read back"
      }
      return problem(format: format, data: data)
    case .png: return headerProblem(path: path, count: pngHeader, check: pngProblem)
    case .jpeg: return headerProblem(path: path, count: jpegHeader, check: jpegProblem)
    default: return nil  // binary is not read; custom formats are checked by their Materializer
    }
  }

  /// Validates a whole body already read: as ``problem(format:path:)`` reads the file.
  ///
  /// - Returns: nil when valid, else the reason in plain words.
  static func problem(format: AssetFormat, data: Data) -> String? {
    switch format {
    case .json: return jsonProblem(data)
    case .text: return textProblem(data)
    case .png: return pngProblem(data.prefix(pngHeader))
    case .jpeg: return jpegProblem(data.prefix(jpegHeader))
    default: return nil
    }
  }

  /// How much of a PNG or a JPEG the header checks read.
  static let pngHeader = 33
  static let jpegHeader = 64 * 1024

  static func headerProblem(path: String, count: Int, check: (Data) -> String?) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      return "the download cannot be read back"
    }
    defer { try? handle.close() }
    let data = (try? handle.read(upToCount: count)) ?? Data()
    return check(data)
  }

  /// JSON must parse (any top-level value).
  public static func jsonProblem(_ data: Data) -> String? {
    // The common document is read in place without building it; anything the scanner is not
    // sure of (it never accepts what Foundation refuses) is left to Foundation, for the verdict
    // and the reason.
    if data.withUnsafeBytes(JSONScanner.isPlainDocument) { return nil }
    do {
      _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
      return nil
    } catch {
      let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
      return "invalid JSON" + (detail.map { ": \($0)" } ?? "")
    }
  }

  /// Text must be valid UTF-8.
  public static func textProblem(_ data: Data) -> String? {
    String(validating: data, as: UTF8.self) == nil ? "not valid UTF-8 text" : nil
  }

  /// PNG: the signature, then an IHDR chunk of length 13 with a correct CRC and sane dimensions.
  public static func pngProblem(_ data: Data) -> String? {
    let bytes = [UInt8](data.prefix(33))
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    guard bytes.count >= 33, Array(bytes[0..<8]) == signature else {
      return "not a PNG (bad signature)"
    }
    let length = bytes[8..<12].reduce(0) { $0 << 8 | UInt32($1) }
    guard length == 13, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
      return "not a PNG (no IHDR header)"
    }
    let crc = bytes[29..<33].reduce(0) { $0 << 8 | UInt32($1) }
    guard CRC32.checksum(bytes[12..<29]) == crc else {
      return "damaged PNG (IHDR checksum mismatch)"
    }
    let width = bytes[16..<20].reduce(0) { $0 << 8 | UInt32($1) }
    let height = bytes[20..<24].reduce(0) { $0 << 8 | UInt32($1) }
    guard width > 0, height > 0 else { return "damaged PNG (zero size)" }
    return nil
  }

  /// JPEG: start-of-image, then segments up to a start-of-frame marker with sane dimensions.
  public static func jpegProblem(_ data: Data) -> String? {
    let b = [UInt8](data)
    guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return "not a JPEG (no start-of-image)" }
    var i = 2
    while i + 4 <= b.count {
      guard b[i] == 0xFF else { return "damaged JPEG (bad segment marker)" }
      let marker = b[i + 1]
      if marker == 0xFF {
        i += 1
        continue
      }
      let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
      guard length >= 2 else { return "damaged JPEG (bad segment length)" }
      if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
        guard i + 9 <= b.count else { return "damaged JPEG (short frame header)" }
        let height = Int(b[i + 5]) << 8 | Int(b[i + 6])
        let width = Int(b[i + 7]) << 8 | Int(b[i + 8])
        return width > 0 && height > 0 ? nil : "damaged JPEG (zero size)"
      }
      if marker == 0xD9 || marker == 0xDA { break }
      i += 2 + length
    }
    return "damaged JPEG (no frame header)"
  }
}

/// CRC-32 (ISO-HDLC), as PNG chunks use.
enum CRC32 {
  static let table: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
    ~bytes.reduce(~UInt32(0)) { table[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
  }
}
