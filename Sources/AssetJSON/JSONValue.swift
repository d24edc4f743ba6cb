/// A JSON value as TUF metadata holds it: integers kept exact, strings kept exactly as decoded,
/// object members by key. There are no floats: TUF metadata has none, and the parser refuses
/// them, so every value has one canonical form (``CanonicalJSON``).
package enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case integer(Int64)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  /// The member `key` of an object, nil for a missing key or a non-object.
  package subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members[key] }
    return nil
  }

  package var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  package var integerValue: Int64? {
    if case .integer(let i) = self { return i }
    return nil
  }

  package var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  package var arrayValue: [JSONValue]? {
    if case .array(let a) = self { return a }
    return nil
  }

  package var objectValue: [String: JSONValue]? {
    if case .object(let o) = self { return o }
    return nil
  }
}
