import Foundation
import Logging

/// A swift-log handler that writes one JSON object per line to stderr (`serve --log-json`):
/// `{"time":…,"level":…,"label":…,"message":…,…metadata}`.
struct JSONLineLogHandler: LogHandler {
  let label: String
  var logLevel: Logger.Level = .info
  var metadata: Logger.Metadata = [:]
  /// Where lines go; stderr unless a test says otherwise.
  var write: @Sendable (Data) -> Void = { JSONLineLogHandler.standardError($0) }

  /// Through ``Console``: whole lines, and a closed stderr ends the process quietly (141).
  static func standardError(_ data: Data) {
    Console.write(data, to: .error)
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let level = event.level
    let message = event.message
    let explicit = event.metadata
    var object: [String: Any] = [:]
    for (key, value) in self.metadata.merging(explicit ?? [:], uniquingKeysWith: { $1 }) {
      object[key] = Self.plain(value)
    }
    object["time"] = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    object["level"] = level.rawValue
    object["label"] = label
    object["message"] = message.description
    guard
      var data = try? JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    else { return }
    data.append(0x0A)
    write(data)
  }

  private static func plain(_ value: Logger.MetadataValue) -> Any {
    switch value {
    case .string(let s): s
    case .stringConvertible(let c): c.description
    case .array(let list): list.map(plain)
    case .dictionary(let map): map.mapValues(plain)
    }
  }
}
