/// Terminal column widths of text, so cells line up whatever the script.
///
/// A small pure table instead of `wcwidth(3)`: the result must not depend on the locale the tests
/// run in. East Asian wide and fullwidth characters take two columns, combining marks and other
/// zero-width characters none, everything else one.
public enum DisplayWidth {
  /// The number of columns `text` occupies.
  public static func of(_ text: String) -> Int {
    // ASCII (nearly every cell a dashboard draws): one column a byte, none for a control byte;
    // a CR LF pair is one grapheme of width 0 either way. Saves a walk by grapheme and a search
    // of the tables per character (most of an idle dashboard's frame).
    var ascii = 0
    var isASCII = true
    for byte in text.utf8 {
      guard byte < 0x80 else {
        isASCII = false
        break
      }
      if byte >= 0x20, byte != 0x7F { ascii += 1 }
    }
    if isASCII { return ascii }
    return text.reduce(0) { $0 + of($1) }
  }

  /// The number of columns one grapheme occupies (0, 1 or 2).
  public static func of(_ grapheme: Character) -> Int {
    // One ASCII scalar (or CR LF, whose asciiValue is LF's: width 0 either way).
    if let byte = grapheme.asciiValue { return byte < 0x20 || byte == 0x7F ? 0 : 1 }
    var widest = 0
    for scalar in grapheme.unicodeScalars {
      if scalar.value == 0xFE0F, widest == 1 { return 2 }  // emoji presentation selector
      widest = max(widest, of(scalar))
    }
    return widest
  }

  /// The number of columns one Unicode scalar occupies on its own.
  public static func of(_ scalar: Unicode.Scalar) -> Int {
    let v = scalar.value
    if v < 0x20 || (0x7F...0x9F).contains(v) { return 0 }
    // Below the first combining mark (U+0300) no table has an entry.
    if v < 0x300 { return 1 }
    if isZeroWidth(v) { return 0 }
    if isWide(v) { return 2 }
    return 1
  }

  private static func isZeroWidth(_ v: UInt32) -> Bool {
    zeroWidthRanges.contains { $0.contains(v) }
  }

  private static func isWide(_ v: UInt32) -> Bool {
    wideRanges.contains { $0.contains(v) }
  }

  /// Combining marks, joiners and variation selectors.
  private static let zeroWidthRanges: [ClosedRange<UInt32>] = [
    0x0300...0x036F, 0x0483...0x0489, 0x0591...0x05BD, 0x0610...0x061A, 0x064B...0x065F,
    0x0E31...0x0E31, 0x0E34...0x0E3A, 0x0E47...0x0E4E, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF,
    0x200B...0x200F, 0x2028...0x202E, 0x2060...0x206F, 0x20D0...0x20FF, 0x302A...0x302F,
    0x3099...0x309A, 0xFE00...0xFE0F, 0xFE20...0xFE2F, 0xFEFF...0xFEFF, 0xE0100...0xE01EF,
  ]

  /// East Asian Wide and Fullwidth blocks, and the emoji blocks terminals draw two columns wide.
  private static let wideRanges: [ClosedRange<UInt32>] = [
    0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0,
    0x23F3...0x23F3, 0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x26A1...0x26A1,
    0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26D4...0x26D4, 0x26EA...0x26EA,
    0x26F2...0x26F5, 0x26FA...0x26FD, 0x2705...0x2705, 0x270A...0x270B, 0x2728...0x2728,
    0x274C...0x274C, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797, 0x27B0...0x27B0,
    0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
    0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
    0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E,
    0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F64F, 0x1F680...0x1F6FF,
    0x1F7E0...0x1F7EB, 0x1F900...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD,
    0x30000...0x3FFFD,
  ]
}
