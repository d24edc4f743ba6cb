/// Writes JSON text into a byte buffer, member by member, for the cache's own metadata files.
///
/// The caller writes keys in the order it wants them (sorted, for a stable file). Pretty output
/// has the layout of Foundation's `JSONEncoder` with `.prettyPrinted` (two-space indent,
/// `"key" : value`), so files look as they did when it wrote them; compact output has no
/// whitespace at all. Strings are escaped as `JSONEncoder` escapes them
/// (``JSONEscape/Style/foundation``): quote, backslash and slash, control characters as
/// `\n`-style or `\u00XX` escapes, everything else (non-ASCII included) kept as UTF-8.
///
/// Its members are `@inlinable`, as ``JSONScanner``'s are: its callers are in another module.
package struct JSONWriter {
  /// The text so far.
  package var bytes: [UInt8] { output }
  @usableFromInline var output: [UInt8] = []
  @usableFromInline let pretty: Bool
  @usableFromInline var depth = 0
  /// Whether the container being written has no member yet.
  @usableFromInline var empty = true

  /// A writer producing pretty (indented) or compact text.
  @inlinable
  package init(pretty: Bool) {
    self.pretty = pretty
    output.reserveCapacity(pretty ? 1024 : 256)
  }

  // MARK: - Containers

  /// Opens an object (as a value: after ``key(_:)``, as an array element or at the top).
  @inlinable
  package mutating func beginObject() { open(0x7B) }

  /// Closes the object opened last.
  @inlinable
  package mutating func endObject() { close(0x7D) }

  /// Opens an array.
  @inlinable
  package mutating func beginArray() { open(0x5B) }

  /// Closes the array opened last.
  @inlinable
  package mutating func endArray() { close(0x5D) }

  /// Starts an array element: the separator and indentation before it.
  @inlinable
  package mutating func element() { separate() }

  /// Starts a member: separator, indentation and the quoted key.
  @inlinable
  package mutating func key(_ name: String) {
    separate()
    string(name)
    if pretty {
      output.append(contentsOf: [0x20, 0x3A, 0x20])
    } else {
      output.append(0x3A)
    }
  }

  // MARK: - Scalars

  /// Writes `"name": "text"` when `text` is not nil (an optional that `JSONEncoder` leaves out).
  @inlinable
  package mutating func field(_ name: String, _ text: String?) {
    guard let text else { return }
    key(name)
    string(text)
  }

  /// Writes a string, escaped as `JSONEncoder` escapes it.
  @inlinable
  package mutating func string(_ text: String) {
    JSONEscape.appendQuoted(text, .foundation, to: &output)
  }

  /// Writes a signed integer.
  @inlinable
  package mutating func int(_ value: Int64) { output.append(contentsOf: String(value).utf8) }

  /// Writes an unsigned integer.
  @inlinable
  package mutating func uint(_ value: UInt64) { output.append(contentsOf: String(value).utf8) }

  /// Writes `true` or `false`.
  @inlinable
  package mutating func bool(_ value: Bool) {
    output.append(contentsOf: (value ? "true" : "false").utf8)
  }

  /// Writes a number in its shortest form that reads back as the same `Double` (`5`, `0.1`,
  /// `1e-07`), as `JSONEncoder` does.
  ///
  /// - Returns: false (nothing written) for infinities and NaN, which JSON cannot carry.
  @inlinable
  package mutating func double(_ value: Double) -> Bool {
    guard value.isFinite else { return false }
    var number = value.description
    if number.hasSuffix(".0") { number.removeLast(2) }
    output.append(contentsOf: number.utf8)
    return true
  }

  // MARK: - Layout

  @inlinable
  mutating func open(_ bracket: UInt8) {
    output.append(bracket)
    depth += 1
    empty = true
  }

  @inlinable
  mutating func close(_ bracket: UInt8) {
    depth -= 1
    if pretty {
      // JSONEncoder leaves an empty line inside an empty container.
      if empty { output.append(0x0A) }
      newline()
    }
    output.append(bracket)
    empty = false
  }

  @inlinable
  mutating func separate() {
    if !empty { output.append(0x2C) }
    empty = false
    if pretty { newline() }
  }

  @inlinable
  mutating func newline() {
    output.append(0x0A)
    output.append(contentsOf: repeatElement(0x20, count: 2 * depth))
  }
}
