import Foundation
import RemoteAssets

/// What the dashboard's event pane says after a refresh someone asked for (`r`, `R`), so every
/// key answers. The engine already logs an update and a failure; an unchanged copy is quiet
/// there (a live asset is checked ten times a second), so a manual check says it here.
enum RefreshFeedback {
  /// The event lines for `command`'s `results` at `now`: one for a single asset that did not
  /// change (or joined a refresh already running, or was cancelled), a summary for all.
  static func entries(_ command: AssetCommand, _ results: [ControlRefreshResult], at now: Date)
    -> [EngineLogEntry]
  {
    switch command {
    case .refresh(let id):
      guard let result = results.first(where: { $0.asset == id }) else { return [] }
      let text: String
      switch result.outcome {
      case .notModified: text = "refresh: unchanged (not modified)"
      case .inFlight: text = "refresh: joined the refresh already running"
      case .cancelled: text = "refresh: cancelled"
      case .updated, .failed: return []  // the engine said so
      }
      return [EngineLogEntry(at: now, assetID: id, level: .info, message: text)]
    case .refreshAll:
      var counts: [RefreshOutcomeKind: Int] = [:]
      for result in results { counts[result.outcome, default: 0] += 1 }
      let parts: [(RefreshOutcomeKind, String)] = [
        (.updated, "updated"), (.notModified, "unchanged"), (.failed, "failed"),
        (.inFlight, "already running"), (.cancelled, "cancelled"),
      ]
      let summary = parts.compactMap { kind, word in counts[kind].map { "\($0) \(word)" } }
      let level: EngineLogEntry.Level = counts[.failed] == nil ? .info : .warning
      return [
        EngineLogEntry(
          at: now, assetID: nil, level: level,
          message: "refreshed \(results.count): " + summary.joined(separator: ", "))
      ]
    default:
      return []
    }
  }
}
