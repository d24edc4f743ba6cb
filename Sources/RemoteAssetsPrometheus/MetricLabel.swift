import AssetModel

/// Label values made safe and bounded: text that came from a server (a version, a manifest's
/// version) never becomes an unbounded or unprintable label.
public enum MetricLabel {
  /// The most UTF-8 bytes a label value holds, `…` included.
  public static let maxBytes = 64

  /// The error kinds exported: ``AssetErrorKind``'s words (`http_status`, `timed_out`, ...,
  /// `other`), a bounded set.
  public static let knownErrorKinds: Set<String> = Set(AssetErrorKind.allCases.map(\.rawValue))

  /// `text` sanitized like any server text (``TerminalText/sanitize(_:maxLength:)``: no control,
  /// bidi or invisible characters) and cut to at most ``maxBytes`` UTF-8 bytes at a character
  /// boundary, ending in `…` when cut.
  public static func bounded(_ text: String, maxBytes: Int = MetricLabel.maxBytes) -> String {
    // More scalars than bytes allowed means more bytes than allowed: cut below either way, so
    // the sanitizer need not read further than this.
    let clean = TerminalText.sanitize(text, maxLength: maxBytes + 1)
    if clean.utf8.count <= maxBytes { return clean }
    let ellipsis = "…"
    var out = ""
    var bytes = 0
    for character in clean {
      let size = character.utf8.count
      if bytes + size > maxBytes - ellipsis.utf8.count { break }
      out.append(character)
      bytes += size
    }
    return out + ellipsis
  }

  /// The `error_kind` label for an error kind: the kind when known, `other` otherwise, empty
  /// without an error.
  public static func errorKind(_ kind: String?) -> String {
    guard let kind else { return "" }
    // The words older versions wrote map to today's; any other word becomes `other`.
    return AssetErrorKind(word: kind).rawValue
  }
}
