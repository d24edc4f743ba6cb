import AssetJSON

/// A JSON value written on one line with sorted keys (for JSON lines); strings sanitized.
enum GuardJSON: Sendable {
  case string(String)
  case number(Double)
  case bool(Bool)
  case null
  case array([GuardJSON])
  case object([String: GuardJSON])

  var text: String {
    switch self {
    case .string(let s):
      return JSONEscape.quoted(OutsideText.json(s), .output)
    case .number(let n):
      guard n.isFinite else { return "null" }
      return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : "\(n)"
    case .bool(let b): return b ? "true" : "false"
    case .null: return "null"
    case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
    case .object(let members):
      return "{"
        + members.sorted { $0.key < $1.key }.map {
          JSONEscape.quoted($0.key, .output) + ":" + $0.value.text
        }
        .joined(separator: ",") + "}"
    }
  }
}
