/// One HTTP header line, kept as raw bytes so a test can put anything on the wire.
///
/// Values are bytes rather than `String` so scripted responses can carry escape sequences,
/// invalid UTF-8 or bare control characters, which the engine and the UI must survive.
public struct OriginHeader: Sendable, Equatable {
  /// The header name as written on the wire (case is preserved).
  public var name: String
  /// The header value as raw bytes.
  public var bytes: [UInt8]

  /// Creates a header from a textual value (its UTF-8 bytes are written verbatim).
  public init(_ name: String, _ value: String) {
    self.name = name
    self.bytes = Array(value.utf8)
  }

  /// Creates a header whose value is the given raw bytes.
  public init(name: String, bytes: [UInt8]) {
    self.name = name
    self.bytes = bytes
  }

  /// The value decoded as UTF-8 (invalid sequences become U+FFFD).
  public var value: String { String(decoding: bytes, as: UTF8.self) }

  /// Whether this header's name equals `other`, ignoring ASCII case.
  public func hasName(_ other: String) -> Bool {
    name.lowercased() == other.lowercased()
  }
}

extension Array where Element == OriginHeader {
  /// The first value of the header named `name` (case-insensitive), if any.
  public func first(named name: String) -> String? {
    first { $0.hasName(name) }?.value
  }

  /// Whether any header is named `name` (case-insensitive).
  public func contains(named name: String) -> Bool {
    contains { $0.hasName(name) }
  }
}
