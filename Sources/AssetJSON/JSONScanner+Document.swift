extension JSONScanner {
  /// Whether `bytes` is one JSON document that Foundation's `JSONSerialization` also reads: any
  /// value at the top level, nesting within ``maximumDepth``, strings of valid UTF-8 with
  /// well-formed escapes, every number finite as a `Double` (Foundation refuses `1e400`).
  ///
  /// False means "not sure", never "invalid": a byte-order mark, deeper nesting, an odd form
  /// the scanner does not read all fall to the caller's Foundation check, which decides and
  /// says why. So this only has to be right about what it accepts, and it builds nothing
  /// (``skipValue(depth:finiteNumbers:)``).
  package static func isPlainDocument(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var scanner = JSONScanner(bytes)
    return scanner.skipValue(finiteNumbers: true) && scanner.isAtEnd()
  }
}
