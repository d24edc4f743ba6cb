/// OLPC canonical JSON as securesystemslib's `encode_canonical` writes it (the bytes TUF
/// signatures are over): object keys sorted by code point, no whitespace, integers in decimal,
/// strings as their UTF-8 with only `"` and `\` escaped (every other character, control
/// characters included, written as it is), `true`/`false`/`null`.
///
/// Key order: securesystemslib sorts keys as Python sorts `str`, by code point, which is the
/// order of their UTF-8 bytes (not Swift's `<` on `String`, nor UTF-16 order, which puts
/// U+E000...U+FFFF after the supplementary planes).
package enum CanonicalJSON {
  /// The canonical bytes of `value`.
  package static func encode(_ value: JSONValue) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(1024)
    write(value, into: &out)
    return out
  }

  private static func write(_ value: JSONValue, into out: inout [UInt8]) {
    switch value {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
    case .integer(let i): out.append(contentsOf: String(i).utf8)
    case .string(let s): writeString(s, into: &out)
    case .array(let items):
      out.append(UInt8(ascii: "["))
      for (i, item) in items.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        write(item, into: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let members):
      out.append(UInt8(ascii: "{"))
      // Python sorts str keys by code point; UTF-8 byte order is the same order.
      let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      for (i, key) in keys.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        writeString(key, into: &out)
        out.append(UInt8(ascii: ":"))
        write(members[key]!, into: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  /// `s` quoted, only `"` and `\` escaped (``JSONEscape/Style/canonical``).
  private static func writeString(_ s: String, into out: inout [UInt8]) {
    JSONEscape.appendQuoted(s, .canonical, to: &out)
  }
}
