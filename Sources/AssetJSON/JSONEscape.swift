/// Writing JSON strings: the one implementation of quoting and escaping, in the three forms the
/// package writes.
///
/// The forms differ on purpose, because each must stay byte for byte what its readers already
/// have on disk, on screen or under a signature:
/// - ``Style/foundation``: as Foundation's `JSONEncoder` escapes (quote, backslash and slash;
///   `\b \f \n \r \t`; other control characters as `\u00xx`). The cache's own files
///   (``JSONWriter``), so they read as they did when `JSONEncoder` wrote them.
/// - ``Style/output``: the CLI's JSON output (``OrderedJSONEncoder``): quote and backslash;
///   `\n \r \t`; other control characters as `\u00xx`; the slash left alone.
/// - ``Style/canonical``: OLPC canonical JSON as securesystemslib writes it (``CanonicalJSON``):
///   only quote and backslash escaped, every other byte written as it is.
///
/// Every form keeps non-ASCII text as its UTF-8 bytes (no `\u` escapes for it).
package enum JSONEscape {
  /// Which characters a form escapes.
  package struct Style: Sendable {
    /// Whether `/` is written `\/`.
    @usableFromInline let escapesSlash: Bool
    /// Whether control characters (below U+0020) are escaped at all.
    @usableFromInline let escapesControls: Bool
    /// Whether backspace and form feed are written `\b` and `\f` (else `\u0008`, `\u000c`).
    @usableFromInline let shortBackspaceAndFormFeed: Bool

    @usableFromInline init(
      escapesSlash: Bool, escapesControls: Bool, shortBackspaceAndFormFeed: Bool
    ) {
      self.escapesSlash = escapesSlash
      self.escapesControls = escapesControls
      self.shortBackspaceAndFormFeed = shortBackspaceAndFormFeed
    }

    // Computed, not stored: inlined into a writer, a form is constants, with no global to
    // load.

    /// As Foundation's `JSONEncoder` writes strings.
    @inlinable package static var foundation: Style {
      Style(escapesSlash: true, escapesControls: true, shortBackspaceAndFormFeed: true)
    }
    /// As the CLI's JSON output writes strings.
    @inlinable package static var output: Style {
      Style(escapesSlash: false, escapesControls: true, shortBackspaceAndFormFeed: false)
    }
    /// As OLPC canonical JSON writes strings: only `"` and `\` escaped.
    @inlinable package static var canonical: Style {
      Style(escapesSlash: false, escapesControls: false, shortBackspaceAndFormFeed: false)
    }
  }

  /// Whether `byte` (of a string's UTF-8) is written escaped in `style`.
  @inlinable
  package static func needsEscape(_ byte: UInt8, _ style: Style) -> Bool {
    byte == 0x22 || byte == 0x5C || (style.escapesSlash && byte == 0x2F)
      || (style.escapesControls && byte < 0x20)
  }

  /// Appends `text` quoted and escaped in `style`.
  @inlinable
  package static func appendQuoted(_ text: String, _ style: Style, to bytes: inout [UInt8]) {
    bytes.append(0x22)
    // The common case: nothing to escape, copied whole (over the string's bytes in place when
    // it has them together, as a native string does: its `utf8` view stepped one index at a
    // time was most of writing an entry).
    let copied: Bool? = text.utf8.withContiguousStorageIfAvailable { text in
      guard !text.contains(where: { needsEscape($0, style) }) else { return false }
      bytes.append(contentsOf: text)
      return true
    }
    if copied ?? !text.utf8.contains(where: { needsEscape($0, style) }) {
      if copied == nil { bytes.append(contentsOf: text.utf8) }
      bytes.append(0x22)
      return
    }
    for byte in text.utf8 {
      guard needsEscape(byte, style) else {
        bytes.append(byte)
        continue
      }
      switch byte {
      case 0x22, 0x5C, 0x2F: bytes.append(contentsOf: [0x5C, byte])
      case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
      case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
      case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
      case 0x08 where style.shortBackspaceAndFormFeed: bytes.append(contentsOf: [0x5C, 0x62])
      case 0x0C where style.shortBackspaceAndFormFeed: bytes.append(contentsOf: [0x5C, 0x66])
      default:
        func hex(_ digit: UInt8) -> UInt8 { digit < 10 ? 0x30 + digit : 0x61 + digit - 10 }
        bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex(byte >> 4), hex(byte & 15)])
      }
    }
    bytes.append(0x22)
  }

  /// `text` as a JSON string literal in `style`.
  package static func quoted(_ text: String, _ style: Style) -> String {
    // Most text needs no escape: joined whole rather than byte by byte.
    if !text.utf8.contains(where: { needsEscape($0, style) }) {
      return "\"" + text + "\""
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 8)
    appendQuoted(text, style, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}
