import AssetModel
import Foundation

/// Writes JSON text into a byte buffer, member by member, for the cache's own metadata files.
///
/// The caller writes keys in the order it wants them (sorted, for a stable file). Pretty output
/// has the layout of Foundation's `JSONEncoder` with `.prettyPrinted` (two-space indent,
/// `"key" : value`), so files look as they did when it wrote them; compact output has no
/// whitespace at all. Strings are escaped as `JSONEncoder` escapes them: quote, backslash and
/// slash, control characters as `\n`-style or `\u00XX` escapes, everything else (non-ASCII
/// included) kept as UTF-8.
struct JSONWriter {
  /// The text so far.
  private(set) var bytes: [UInt8] = []
  private let pretty: Bool
  private var depth = 0
  /// Whether the container being written has no member yet.
  private var empty = true

  /// A writer producing pretty (indented) or compact text.
  init(pretty: Bool) {
    self.pretty = pretty
    bytes.reserveCapacity(pretty ? 1024 : 256)
  }

  // MARK: - Containers

  /// Opens an object (as a value: after ``key(_:)``, as an array element or at the top).
  mutating func beginObject() { open(0x7B) }

  /// Closes the object opened last.
  mutating func endObject() { close(0x7D) }

  /// Opens an array.
  mutating func beginArray() { open(0x5B) }

  /// Closes the array opened last.
  mutating func endArray() { close(0x5D) }

  /// Starts an array element: the separator and indentation before it.
  mutating func element() { separate() }

  /// Starts a member: separator, indentation and the quoted key.
  mutating func key(_ name: String) {
    separate()
    string(name)
    if pretty {
      bytes.append(contentsOf: [0x20, 0x3A, 0x20])
    } else {
      bytes.append(0x3A)
    }
  }

  // MARK: - Scalars

  /// Writes a string, escaped.
  /// Writes `"name": "text"` when `text` is not nil (an optional that `JSONEncoder` leaves out).
  mutating func field(_ name: String, _ text: String?) {
    guard let text else { return }
    key(name)
    string(text)
  }

  mutating func string(_ text: String) {
    bytes.append(0x22)
    let plain = !text.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x2F }
    if plain {
      bytes.append(contentsOf: text.utf8)
      bytes.append(0x22)
      return
    }
    for byte in text.utf8 {
      switch byte {
      case 0x22, 0x5C, 0x2F: bytes.append(contentsOf: [0x5C, byte])
      case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
      case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
      case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
      case 0x08: bytes.append(contentsOf: [0x5C, 0x62])
      case 0x0C: bytes.append(contentsOf: [0x5C, 0x66])
      case 0..<0x20:
        func hex(_ digit: UInt8) -> UInt8 { digit < 10 ? 0x30 + digit : 0x61 + digit - 10 }
        bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex(byte >> 4), hex(byte & 15)])
      default: bytes.append(byte)
      }
    }
    bytes.append(0x22)
  }

  /// Writes a signed integer.
  mutating func int(_ value: Int64) { bytes.append(contentsOf: String(value).utf8) }

  /// Writes an unsigned integer.
  mutating func uint(_ value: UInt64) { bytes.append(contentsOf: String(value).utf8) }

  /// Writes `true` or `false`.
  mutating func bool(_ value: Bool) { bytes.append(contentsOf: (value ? "true" : "false").utf8) }

  /// Writes a number in its shortest form that reads back as the same `Double` (`5`, `0.1`,
  /// `1e-07`), as `JSONEncoder` does.
  ///
  /// - Returns: false (nothing written) for infinities and NaN, which JSON cannot carry.
  mutating func double(_ value: Double) -> Bool {
    guard value.isFinite else { return false }
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    bytes.append(contentsOf: text.utf8)
    return true
  }

  /// Writes a date as ``ISO8601Time`` text (whole seconds, UTC).
  mutating func date(_ value: Date) { string(ISO8601Time.format(value)) }

  // MARK: - Layout

  private mutating func open(_ bracket: UInt8) {
    bytes.append(bracket)
    depth += 1
    empty = true
  }

  private mutating func close(_ bracket: UInt8) {
    depth -= 1
    if pretty {
      // JSONEncoder leaves an empty line inside an empty container.
      if empty { bytes.append(0x0A) }
      newline()
    }
    bytes.append(bracket)
    empty = false
  }

  private mutating func separate() {
    if !empty { bytes.append(0x2C) }
    empty = false
    if pretty { newline() }
  }

  private mutating func newline() {
    bytes.append(0x0A)
    bytes.append(contentsOf: repeatElement(0x20, count: 2 * depth))
  }
}
