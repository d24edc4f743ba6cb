import AssetModel
import Foundation

/// Parsers for the config file's value syntaxes: durations, sizes, ids, `${ENV}` templates, hosts.
package enum ConfigValues {
  /// Parses `250ms`, `30s`, `5m`, `1h`, `2d` (or a bare number of seconds) into seconds.
  ///
  /// Returns nil for anything that is not a finite, non-negative decimal number with an optional
  /// unit (`inf`, `nan` and hexadecimal floats are refused). The range is the caller's to check
  /// (see ``ConfigLimits``).
  public static func duration(_ text: String) -> TimeInterval? {
    plainDuration(text) ?? anyDuration(text)
  }

  /// ``duration(_:)`` for the common text, read in bytes: up to nine digits and one unit (`30s`,
  /// `1h`, `500ms`), nothing else. Nil for any other text, which ``anyDuration(_:)`` reads. Its
  /// answers are the general reading's (tested against it); that one cost about 4,300
  /// instructions a value, twice per asset of a config.
  static func plainDuration(_ text: String) -> TimeInterval? {
    var value = 0
    var digits = 0
    var unit = 0  // the bytes after the digits, packed
    var unitBytes = 0
    for byte in text.utf8 {
      if unitBytes == 0, byte &- UInt8(ascii: "0") < 10 {
        digits += 1
        guard digits <= 9 else { return nil }
        value = value * 10 + Int(byte &- UInt8(ascii: "0"))
      } else {
        unitBytes += 1
        guard unitBytes <= 2 else { return nil }
        unit = unit << 8 | Int(byte)
      }
    }
    guard digits > 0 else { return nil }
    let factor: Double
    switch unit {
    case Int(UInt8(ascii: "s")): factor = 1
    case Int(UInt8(ascii: "m")): factor = 60
    case Int(UInt8(ascii: "h")): factor = 3600
    case Int(UInt8(ascii: "d")): factor = 86400
    case Int(UInt8(ascii: "m")) << 8 | Int(UInt8(ascii: "s")): factor = 0.001
    default: return nil
    }
    return Double(value) * factor
  }

  /// ``duration(_:)`` for any text: trimmed, a unit suffix, a decimal number.
  static func anyDuration(_ text: String) -> TimeInterval? {
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
    let t = text.trimmingWhitespace()
    for (suffix, factor) in units where t.hasSuffix(suffix) {
      // "5ms" also ends in "s": only accept if the remainder is a plain number.
      if let v = decimal(t.dropLast(suffix.count)) {
        let seconds = v * factor
        return seconds.isFinite ? seconds : nil
      }
    }
    return decimal(Substring(t))
  }

  /// Parses `1048576`, `512KiB`, `64MiB`, `1GiB` (also `KB`/`MB`/`GB` as powers of 1000).
  ///
  /// Returns nil unless the result is a whole, non-negative number of bytes that fits in `Int64`
  /// (`1e30GiB`, `infB`, `0.5B` and `-1` are all nil). The range is the caller's to check.
  public static func size(_ text: String) -> Int64? {
    let units: [(String, Double)] = [
      ("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("TiB", 1_099_511_627_776),
      ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("B", 1),
    ]
    let t = text.trimmingWhitespace()
    for (suffix, factor) in units where t.hasSuffix(suffix) {
      if let v = decimal(String(t.dropLast(suffix.count)).trimmingWhitespace()[...]) {
        return wholeBytes(v * factor)
      }
    }
    return decimal(Substring(t)).flatMap(wholeBytes)
  }

  /// `bytes` as an `Int64` when it is a whole number in 0...Int64.max (exactly representable).
  static func wholeBytes(_ bytes: Double) -> Int64? {
    // 2^63 is the first Double past Int64.max; anything at or above it would trap.
    guard bytes.isFinite, bytes >= 0, bytes < 9_223_372_036_854_775_808.0,
      bytes == bytes.rounded()
    else { return nil }
    return Int64(bytes)
  }

  /// A plain non-negative decimal number (`12`, `0.5`, `1e3`): no sign, `inf`, `nan` or hex.
  static func decimal(_ text: Substring) -> Double? {
    guard let first = text.first, first.isASCII, first.isNumber || first == ".",
      text.allSatisfy({ $0.isASCII && ($0.isNumber || "eE.+-".contains($0)) })
    else { return nil }
    guard let v = Double(text), v.isFinite, v >= 0 else { return nil }
    return v
  }

  /// Why `id` is not a valid asset id, or nil when it is (`[a-z0-9][a-z0-9._-]{0,63}`).
  ///
  /// The id names a file in the cache, so it can never contain `/`, start with `.`, or be `..`.
  /// Why `text` cannot be an instance id (nil when it can): 1 to 128 characters of letters,
  /// digits, `.`, `_`, `-`, `:` and `@` (host names, pod names, `web-7@eu`).
  package static func instanceProblem(_ text: String) -> String? {
    guard !text.isEmpty else { return "must not be empty" }
    guard text.utf8.count <= 128 else { return "is longer than 128 characters" }
    let allowed = Set("._-:@".utf8)
    for b in text.utf8 where !(b.isASCIIAlphanumeric || allowed.contains(b)) {
      return "may only contain letters, digits, '.', '_', '-', ':' and '@'"
    }
    return nil
  }

  public static func idProblem(_ id: String) -> String? {
    let bytes = Array(id.utf8)
    guard !bytes.isEmpty else { return "must not be empty" }
    guard bytes.count <= 64 else { return "is longer than 64 characters" }
    func isLowerAlnum(_ b: UInt8) -> Bool { (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) }
    guard isLowerAlnum(bytes[0]) else { return "must start with a lowercase letter or digit" }
    for b in bytes
    where
      !(isLowerAlnum(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "_")
      || b == UInt8(ascii: "-"))
    {
      return "may only contain a-z, 0-9, '.', '_' and '-'"
    }
    return nil
  }

  /// Expands `${NAME}` and `${NAME:-default}` from `environment`.
  ///
  /// - Returns: the expanded text, or the name of the first variable that is missing and has no
  ///   default.
  public static func expand(_ template: String, environment: [String: String]) -> Result<
    String, MissingVariable
  > {
    var out = ""
    var rest = Substring(template)
    while let start = rest.range(of: "${") {
      out += rest[..<start.lowerBound]
      guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
        out += rest[start.lowerBound...]
        return .success(out)
      }
      let body = rest[start.upperBound..<end]
      let name: Substring
      let fallback: Substring?
      if let sep = body.range(of: ":-") {
        name = body[..<sep.lowerBound]
        fallback = body[sep.upperBound...]
      } else {
        name = body
        fallback = nil
      }
      if let value = environment[String(name)], !(value.isEmpty && fallback != nil) {
        out += value
      } else if let fallback {
        out += fallback
      } else {
        return .failure(MissingVariable(name: String(name)))
      }
      rest = rest[rest.index(after: end)...]
    }
    return .success(out + rest)
  }

  /// A `${NAME}` without a default whose variable is not set.
  package struct MissingVariable: Error, Equatable {
    /// The variable's name.
    public var name: String
  }
}

extension UInt8 {
  /// An ASCII letter or digit.
  fileprivate var isASCIIAlphanumeric: Bool {
    (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
  }
}
