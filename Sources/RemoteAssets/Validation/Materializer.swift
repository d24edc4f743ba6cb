import Foundation

/// Turns an asset's validated bytes into a value the app uses; throwing rejects the bytes.
///
/// Materializers compose: build a typed one from JSON, or wrap a closure.
///
/// ```swift
/// struct Flags: Decodable { var newUI: Bool }
/// let flags = try await engine.value("feature-flags", as: .json(Flags.self))
/// let lines = try await engine.value("motd", as: .text.map { $0.split(separator: "\n") })
/// ```
public struct Materializer<Value>: Sendable {
  /// Converts bytes into a value, or throws to reject them.
  public let materialize: @Sendable (Data) throws -> Value

  /// Creates a materializer from a closure.
  public init(_ materialize: @escaping @Sendable (Data) throws -> Value) {
    self.materialize = materialize
  }

  /// A materializer that converts this one's value further.
  public func map<Other>(_ transform: @escaping @Sendable (Value) throws -> Other) -> Materializer<
    Other
  > {
    let base = materialize
    return Materializer<Other> { try transform(base($0)) }
  }
}

/// A rejection by a materializer, with the reason.
package struct MaterializeError: Error, Sendable, CustomStringConvertible {
  /// The reason.
  package var message: String
  /// Creates an error.
  package init(_ message: String) { self.message = message }
  package var description: String { message }
}

extension Materializer where Value == Data {
  /// The bytes as they are.
  public static var data: Materializer<Data> { Materializer { $0 } }
}

extension Materializer where Value == String {
  /// UTF-8 text.
  public static var text: Materializer<String> {
    Materializer { data in
      guard let s = String(validating: data, as: UTF8.self) else {
        throw MaterializeError("not valid UTF-8 text")
      }
      return s
    }
  }
}

extension Materializer where Value: Decodable & SendableMetatype {
  /// A `Decodable` value from JSON.
  public static func json(
    _ type: Value.Type, decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
  ) -> Materializer<Value> {
    Materializer { try decoder().decode(Value.self, from: $0) }
  }
}

/// A typed value inside a JSON-object asset, with a default used when the asset, the key or its
/// type is missing (like RemoteConfigStore's `RemoteConfigKey`).
///
/// ```swift
/// let newUI = RemoteAssetKey<Bool>("feature-flags", "new_ui", defaultValue: false)
/// if await engine.value(for: newUI) { ... }
/// ```
public struct RemoteAssetKey<Value: Decodable & Sendable>: Sendable {
  /// The JSON asset holding the value.
  public var assetID: String
  /// The top-level key (use dots for nested objects: `"ui.theme"`).
  public var key: String
  /// What to return when the value cannot be read.
  public var defaultValue: Value

  /// Creates a key.
  public init(_ assetID: String, _ key: String, defaultValue: Value) {
    self.assetID = assetID
    self.key = key
    self.defaultValue = defaultValue
  }

  /// Reads the value out of a JSON document, or the default.
  public func value(in data: Data) -> Value {
    guard var node = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    else { return defaultValue }
    for part in key.split(separator: ".") {
      guard let object = node as? [String: Any], let next = object[String(part)] else {
        return defaultValue
      }
      node = next
    }
    guard JSONSerialization.isValidJSONObject([node]),
      let encoded = try? JSONSerialization.data(withJSONObject: [node]),
      let decoded = try? JSONDecoder().decode([Value].self, from: encoded).first
    else { return defaultValue }
    return decoded
  }
}
