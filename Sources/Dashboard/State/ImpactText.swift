import AssetModel
import Foundation

/// The sentences a confirm dialog shows: what the action will do to this asset, from its status,
/// and for a reset, until when (the next automatic refresh fetches the remote copy again).
enum ImpactText {
  /// The impact of `action` on the asset `status` at `now`; `info` says whether automatic
  /// refresh is paused engine-wide.
  static func describe(
    _ action: ConfirmDialog.Action, _ status: AssetStatus, info: EngineInfo? = nil,
    now: Date = Date()
  ) -> String {
    switch action {
    case .dropCache: dropCache(status)
    case .resetToBundled: resetToBundled(status, info: info, now: now)
    case .rollback: rollback(status)
    }
  }

  private static func dropCache(_ status: AssetStatus) -> String {
    guard status.source == .cached else {
      return "Drop cached copy of \(status.id)? There is no cached copy; nothing changes."
    }
    return "Drop cached copy of \(status.id)\(sizeNote(status))? It will serve \(fallback(status))."
  }

  private static func resetToBundled(_ status: AssetStatus, info: EngineInfo?, now: Date)
    -> String
  {
    guard status.source == .cached else {
      return "Reset \(status.id) to its bundled copy? It serves no cached copy; nothing changes."
    }
    let current = Formatting.safe(status.version ?? "its cached copy")
    let served =
      status.hasBundledCopy ? "now serves the bundled copy" : "now serves nothing: no bundled copy,"
    return "Reset \(status.id) to its bundled copy? It serves \(current)\(sizeNote(status)). "
      + "y: \(status.id) \(served) \(until(status, info: info, now: now))."
  }

  /// Until when a reset holds: the next automatic refresh fetches the remote copy again.
  static func until(_ status: AssetStatus, info: EngineInfo?, now: Date) -> String {
    if status.isLive { return "until the file changes" }
    if status.paused || info?.autoRefreshPaused == true {
      return "for good: auto-refresh is paused (r fetches it again)"
    }
    guard let next = status.nextAttemptAt else {
      return "for good: it refreshes only when asked (r)"
    }
    let left = next.timeIntervalSince(now)
    return left <= 0
      ? "until the next refresh, due now"
      : "until the next refresh in \(Formatting.duration(left))"
  }

  private static func rollback(_ status: AssetStatus) -> String {
    let current = Formatting.safe(status.version ?? "the current copy")
    return "Roll back \(status.id) to the previous generation? It now serves \(current)."
  }

  /// What is served once the cached copy is gone.
  private static func fallback(_ status: AssetStatus) -> String {
    status.hasBundledCopy ? "the bundled copy" : "nothing (it has no bundled copy)"
  }

  private static func sizeNote(_ status: AssetStatus) -> String {
    guard let size = status.size else { return "" }
    return " (\(Formatting.size(size)))"
  }
}
