import Logging
import RemoteAssets

/// A log handler that cleans every message and metadata value with the one sanitizer before the
/// handler it wraps writes them, so the engine's log on stderr (`--verbose`) never carries
/// terminal controls from a server, a file or the config, whatever the engine put in it.
struct SanitizingLogHandler: LogHandler {
  private var wrapped: any LogHandler

  /// Wraps `handler`, which does the writing.
  init(wrapping handler: any LogHandler) { wrapped = handler }

  var logLevel: Logger.Level {
    get { wrapped.logLevel }
    set { wrapped.logLevel = newValue }
  }

  var metadata: Logger.Metadata {
    get { wrapped.metadata }
    set { wrapped.metadata = newValue }
  }

  var metadataProvider: Logger.MetadataProvider? {
    get { wrapped.metadataProvider }
    set { wrapped.metadataProvider = newValue }
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { wrapped[metadataKey: key] }
    set { wrapped[metadataKey: key] = newValue }
  }

  /// Cleans the event's message, metadata and error text, then passes it on.
  func log(event: LogEvent) {
    var clean = event
    clean.message = "\(OutsideText.line(event.message.description))"
    var metadata = event.metadata?.mapValues(Self.clean)
    if let error = event.error {
      clean.error = nil
      metadata = (metadata ?? [:]).merging(["error": .string(OutsideText.line("\(error)"))]) {
        current, _ in current
      }
    }
    clean.metadata = metadata
    wrapped.log(event: clean)
  }

  private static func clean(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
    switch value {
    case .string(let text): .string(OutsideText.line(text))
    case .stringConvertible(let convertible): .string(OutsideText.line(convertible.description))
    case .dictionary(let dictionary): .dictionary(dictionary.mapValues(clean))
    case .array(let array): .array(array.map(clean))
    }
  }
}
