/// Text from outside (servers, files) made safe to show in a terminal, a log line or JSON meant
/// for people.
package enum TerminalText {
  /// Removes what could move the cursor, change colours, retitle the terminal, reorder the text
  /// or hide part of it, so server-supplied text (ETags, error bodies, header values, manifest
  /// versions) and file-supplied text (config keys) cannot: C0 and C1 control characters, DEL
  /// (so no escape sequence can start), bidirectional controls (U+061C, U+200E, U+200F,
  /// U+202A–U+202E, U+2066–U+2069), invisible format characters (U+00AD, U+180E,
  /// U+200B–U+200D, U+2060–U+2064, U+FEFF, and every other Unicode format character, category Cf)
  /// and the blank Hangul fillers. Line and paragraph separators (U+2028, U+2029),
  /// tabs and newlines become spaces. At most `maxLength` characters are kept, then `…`.
  package static func sanitize(_ text: String, maxLength: Int = 512) -> String {
    // Printable ASCII within the length (nearly all text) is kept as it is, without rebuilding
    // it scalar by scalar.
    let bytes = text.utf8
    if bytes.count <= maxLength, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
    var out = String.UnicodeScalarView()
    var count = 0
    for scalar in text.unicodeScalars {
      if count >= maxLength {
        out.append("…")
        break
      }
      switch classify(scalar) {
      case .keep: out.append(scalar)
      case .space: out.append(" ")
      case .drop: continue
      }
      count += 1
    }
    return String(out)
  }

  /// What ``sanitize(_:maxLength:)`` does with one scalar.
  enum Treatment: Equatable {
    case keep, space, drop
  }

  static func classify(_ scalar: Unicode.Scalar) -> Treatment {
    let v = scalar.value
    switch v {
    case 0x09, 0x0A, 0x0D: return .space
    case 0x00..<0x20, 0x7F, 0x80...0x9F: return .drop  // C0, DEL, C1 (incl. CSI 0x9B)
    case 0x20..<0x7F: return .keep  // fast path for ASCII
    default: break
    }
    // Bidi marks and controls, zero-width and invisible operators, BOM, soft hyphen, and the
    // Mongolian vowel separator are all Cf (format); so are the tag characters (U+E0000 block)
    // that can smuggle hidden text. None is needed to read a message.
    if scalar.properties.generalCategory == .format { return .drop }
    // Hangul fillers: letters by category, but blank, and used to fake empty names.
    if v == 0x115F || v == 0x1160 || v == 0x3164 || v == 0xFFA0 { return .drop }
    // Line and paragraph separators would break a line like a newline.
    if v == 0x2028 || v == 0x2029 { return .space }
    // Unassigned noncharacters and private use are harmless to a terminal: kept.
    return .keep
  }
}
