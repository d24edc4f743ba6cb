/// Text from outside (servers, files) made safe to show in a terminal or a log line.
public enum TerminalText {
  /// Removes C0 and C1 control characters, DEL and escape sequences' introducers, and
  /// bidirectional overrides, so server-supplied text (ETags, error bodies, header values) cannot
  /// move the cursor, change colours or retitle the terminal. Tabs and newlines become spaces.
  public static func sanitize(_ text: String, maxLength: Int = 512) -> String {
    var out = String.UnicodeScalarView()
    var count = 0
    for scalar in text.unicodeScalars {
      if count >= maxLength {
        out.append("…")
        break
      }
      let v = scalar.value
      if v == 0x09 || v == 0x0A || v == 0x0D {
        out.append(" ")
      } else if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) {
        continue
      } else if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) {
        continue
      } else {
        out.append(scalar)
      }
      count += 1
    }
    return String(out)
  }
}
