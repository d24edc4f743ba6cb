/// SHA-256 digests as text: the one check used for configs, manifests, entries and blob names.
enum SHA256Text {
  /// Whether `text` is 64 lowercase ASCII hexadecimal digits.
  static func isValid(_ text: String) -> Bool {
    let isLowerHex = { (byte: UInt8) in (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }
    // Over the bytes in place (as ``DirectoryHandle/checkName(_:)`` does): every blob name of
    // every listing of `objects/` is checked.
    return text.utf8.count == 64
      && (text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isLowerHex) }
        ?? text.utf8.allSatisfy(isLowerHex))
  }

  /// `text` in lowercase when it is 64 ASCII hexadecimal digits in either case (what a config or
  /// a manifest may write), else nil. Fullwidth and other non-ASCII digits are refused.
  static func normalized(_ text: String) -> String? {
    let lower = String(
      decoding: text.utf8.map { (0x41...0x46).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    return isValid(lower) ? lower : nil
  }

  /// Lowercase hexadecimal of a digest's bytes, without a formatter per byte.
  static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(64)
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
  }
}
