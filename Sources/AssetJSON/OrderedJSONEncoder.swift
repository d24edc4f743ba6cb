/// Encodes `Encodable` values as pretty-printed JSON whose object keys come out in the order the
/// value's `encode(to:)` wrote them.
///
/// The CLI documents its JSON keys in a fixed order. Foundation's `JSONEncoder` on Linux emits
/// keys in hash order (a different order on every run) unless `.sortedKeys` asks for alphabetical
/// order, so neither keeps a hand-written `CodingKeys` order. Strings are written as UTF-8 with
/// `"`, `\` and control characters escaped; slashes are not escaped (``JSONEscape/Style/output``).
///
/// Why a writer of its own beside ``JSONWriter``: it takes any `Encodable` (the CLI's output
/// types), keeps their members' order rather than sorting, and writes numbers as Swift prints
/// them (`5.0` stays `5.0`), which the documented output has always had.
package struct OrderedJSONEncoder {
  /// An encoder.
  package init() {}

  /// Encodes `value` as JSON text, without a trailing newline.
  ///
  /// - Throws: `EncodingError.invalidValue` for a number that JSON cannot carry (NaN, infinity),
  ///   or whatever `value`'s own `encode(to:)` throws.
  package func encode<T: Encodable>(_ value: T) throws -> String {
    try encode(value, indent: "")
  }

  /// Encodes `value` as it would appear nested on a line indented by `indent` (for writers that
  /// stream a large array element by element instead of building the whole document).
  ///
  /// - Throws: as ``encode(_:)``.
  package func encode<T: Encodable>(_ value: T, indent: String) throws -> String {
    let root = JSONNode()
    try root.store(value, codingPath: [])
    var out = ""
    root.write(to: &out, indent: indent)
    return out
  }

  /// `text` as a JSON string literal, escaped as every string this encoder writes.
  package static func quoted(_ text: String) -> String { JSONEscape.quoted(text, .output) }
}

/// One value of the tree an ``OrderedJSONEncoder`` builds: a literal, an object whose members
/// keep their insertion order, or an array.
private final class JSONNode {
  enum Kind { case empty, literal, object, array }

  private(set) var kind = Kind.empty
  private var literal = ""
  private var members: [(key: String, node: JSONNode)] = []
  private var elements: [JSONNode] = []

  /// Stores `value` here: a primitive as a literal, anything else through its `encode(to:)`.
  func store(_ value: some Encodable, codingPath: [any CodingKey]) throws {
    if let text = try Self.literal(of: value, codingPath: codingPath) {
      setLiteral(text)
    } else {
      try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
    }
  }

  func setLiteral(_ text: String) {
    kind = .literal
    literal = text
  }

  /// Makes this node an object (keeping its members when it already is one).
  func becomeObject() {
    guard kind != .object else { return }
    kind = .object
    members = []
  }

  /// Makes this node an array (keeping its elements when it already is one).
  func becomeArray() {
    guard kind != .array else { return }
    kind = .array
    elements = []
  }

  /// The member node for `key`, created at the end of the object if it is new.
  func member(_ key: String) -> JSONNode {
    becomeObject()
    if let existing = members.first(where: { $0.key == key }) { return existing.node }
    let node = JSONNode()
    members.append((key, node))
    return node
  }

  /// A new node at the end of the array.
  func appendElement() -> JSONNode {
    becomeArray()
    let node = JSONNode()
    elements.append(node)
    return node
  }

  var elementCount: Int { elements.count }

  /// Writes this node pretty-printed; `indent` is the indentation of the line it starts on.
  func write(to out: inout String, indent: String) {
    switch kind {
    case .literal:
      out += literal
    case .empty:
      out += "{}"
    case .object where members.isEmpty:
      out += "{}"
    case .array where elements.isEmpty:
      out += "[]"
    case .object:
      let inner = indent + "  "
      out += "{\n"
      for (index, member) in members.enumerated() {
        out += inner + JSONEscape.quoted(member.key, .output) + " : "
        member.node.write(to: &out, indent: inner)
        out += index == members.count - 1 ? "\n" : ",\n"
      }
      out += indent + "}"
    case .array:
      let inner = indent + "  "
      out += "[\n"
      for (index, element) in elements.enumerated() {
        out += inner
        element.write(to: &out, indent: inner)
        out += index == elements.count - 1 ? "\n" : ",\n"
      }
      out += indent + "]"
    }
  }

  /// The JSON literal of a primitive value (string, bool, number), or `nil` for anything else.
  static func literal(of value: Any, codingPath: [any CodingKey]) throws -> String? {
    switch value {
    case let string as String: return JSONEscape.quoted(string, .output)
    case let bool as Bool: return bool ? "true" : "false"
    // The integer types by name: a cast to `any BinaryInteger` looked up the conformance of
    // every value that is not a primitive (each struct, array and optional of a status).
    case let integer as Int: return String(integer)
    case let integer as Int64: return String(integer)
    case let integer as UInt64: return String(integer)
    case let integer as Int32: return String(integer)
    case let integer as UInt32: return String(integer)
    case let integer as UInt: return String(integer)
    case let integer as Int16: return String(integer)
    case let integer as UInt16: return String(integer)
    case let integer as Int8: return String(integer)
    case let integer as UInt8: return String(integer)
    case let number as Double: return try finite(number, number.isFinite, codingPath)
    case let number as Float: return try finite(number, number.isFinite, codingPath)
    default: return nil
    }
  }

  private static func finite(_ number: Any, _ isFinite: Bool, _ codingPath: [any CodingKey])
    throws -> String
  {
    guard isFinite else {
      throw EncodingError.invalidValue(
        number,
        EncodingError.Context(codingPath: codingPath, debugDescription: "JSON has no \(number)"))
    }
    return "\(number)"
  }
}

/// The `Encoder` handed to a value's `encode(to:)`: its containers write into one node.
private struct NodeEncoder: Encoder {
  let node: JSONNode
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    node.becomeObject()
    return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    node.becomeArray()
    return UnkeyedNodeContainer(node: node, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleNodeContainer(node: node, codingPath: codingPath)
  }
}

/// The coding key of an array element, for coding paths in errors.
private struct IndexKey: CodingKey {
  let intValue: Int?
  var stringValue: String { "\(intValue ?? 0)" }
  init(intValue: Int) { self.intValue = intValue }
  init?(stringValue: String) { nil }
}

/// An object's members, in the order they are encoded.
private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let node: JSONNode
  let codingPath: [any CodingKey]

  mutating func encodeNil(forKey key: Key) throws {
    node.member(key.stringValue).setLiteral("null")
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }

  private func put(_ value: some Encodable, _ key: Key) throws {
    try node.member(key.stringValue).store(value, codingPath: codingPath + [key])
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
      .container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
      .unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    NodeEncoder(node: node.member("super"), codingPath: codingPath)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
  }
}

/// An array's elements, in order.
private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
  let node: JSONNode
  let codingPath: [any CodingKey]
  var count: Int { node.elementCount }

  private var nextPath: [any CodingKey] { codingPath + [IndexKey(intValue: count)] }

  mutating func encodeNil() throws { node.appendElement().setLiteral("null") }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let path = nextPath
    try node.appendElement().store(value, codingPath: path)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let path = nextPath
    return NodeEncoder(node: node.appendElement(), codingPath: path).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let path = nextPath
    return NodeEncoder(node: node.appendElement(), codingPath: path).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    let path = nextPath
    return NodeEncoder(node: node.appendElement(), codingPath: path)
  }
}

/// A single value.
private struct SingleNodeContainer: SingleValueEncodingContainer {
  let node: JSONNode
  let codingPath: [any CodingKey]

  mutating func encodeNil() throws { node.setLiteral("null") }

  mutating func encode<T: Encodable>(_ value: T) throws {
    try node.store(value, codingPath: codingPath)
  }
}
