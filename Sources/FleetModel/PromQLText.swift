/// Quoting for PromQL: label values in double-quoted strings, and exact-match alternatives for
/// `=~` regular expressions (RE2, anchored by Prometheus). Pure.
public enum PromQLText {
  /// `text` as a PromQL double-quoted string literal (`"`, `\` and controls escaped).
  public static func string(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": out += "\\\\"
      case "\"": out += "\\\""
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  /// A regular expression matching exactly one of `values` (each escaped), for `label=~...`.
  public static func alternatives(_ values: [String]) -> String {
    values.map(regexLiteral).joined(separator: "|")
  }

  /// `text` with every RE2 metacharacter escaped, so it matches itself.
  public static func regexLiteral(_ text: String) -> String {
    var out = ""
    for character in text {
      if "\\.+*?()|[]{}^$".contains(character) { out.append("\\") }
      out.append(character)
    }
    return out
  }
}
