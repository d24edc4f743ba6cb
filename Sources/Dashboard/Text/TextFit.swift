import TerminalCore

/// Cutting and padding text to a number of terminal columns.
enum TextFit {
  /// `text` cut to at most `width` columns; cut text ends with `ellipsis`.
  static func truncate(_ text: String, to width: Int, ellipsis: Character) -> String {
    guard width > 0 else { return "" }
    guard DisplayWidth.of(text) > width else { return text }
    let room = width - DisplayWidth.of(ellipsis)
    var out = ""
    var used = 0
    for grapheme in text {
      let w = DisplayWidth.of(grapheme)
      if used + w > room { break }
      out.append(grapheme)
      used += w
    }
    return out + String(ellipsis)
  }

  /// `text` cut to `width` columns and padded with spaces to exactly `width` columns.
  static func pad(_ text: String, to width: Int, ellipsis: Character) -> String {
    let cut = truncate(text, to: width, ellipsis: ellipsis)
    let missing = width - DisplayWidth.of(cut)
    return missing > 0 ? cut + String(repeating: " ", count: missing) : cut
  }

  /// `text` cut to `width` columns and padded on the left to exactly `width` columns.
  static func padLeft(_ text: String, to width: Int, ellipsis: Character) -> String {
    let cut = truncate(text, to: width, ellipsis: ellipsis)
    let missing = width - DisplayWidth.of(cut)
    return missing > 0 ? String(repeating: " ", count: missing) + cut : cut
  }

  /// `text` split into lines of at most `width` columns, breaking at spaces where possible.
  static func wrap(_ text: String, to width: Int) -> [String] {
    guard width > 0 else { return [] }
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
      let candidate = line.isEmpty ? word : line + " " + word
      if DisplayWidth.of(candidate) <= width {
        line = candidate
        continue
      }
      if !line.isEmpty { lines.append(line) }
      line = word
      while DisplayWidth.of(line) > width {
        let head = hardCut(line, width)
        lines.append(head)
        line = String(line.dropFirst(head.count))
      }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }

  /// The longest prefix of `text` that fits in `width` columns (at least one grapheme).
  private static func hardCut(_ text: String, _ width: Int) -> String {
    var out = ""
    var used = 0
    for grapheme in text {
      let w = DisplayWidth.of(grapheme)
      if used + w > width, !out.isEmpty { break }
      out.append(grapheme)
      used += w
    }
    return out
  }
}
