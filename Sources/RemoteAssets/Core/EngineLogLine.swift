import AssetModel
import Foundation
import Logging

/// A line a core asks the engine to log (as an event for subscribers and through swift-log).
struct EngineLogLine: Sendable, Equatable {
  /// The asset it is about (nil: the engine).
  var assetID: String?
  /// How serious it is.
  var level: EngineLogEntry.Level
  /// The line, not yet sanitized for a terminal.
  var message: String

  /// The swift-log metadata of a line about `assetID`: the asset's id, when there is one.
  static func metadata(assetID: String?) -> Logger.Metadata {
    guard let assetID else { return [:] }
    return ["asset": "\(assetID)"]
  }
}

extension EngineLogEntry.Level {
  /// The swift-log level a line of this level is logged at.
  var loggerLevel: Logger.Level {
    switch self {
    case .info: .info
    case .warning: .warning
    case .error: .error
    }
  }
}
