import Dashboard
import Foundation
import RemoteAssets

/// Moves a link's updates into the dashboard's inbox, which the terminal thread drains once per
/// frame.
///
/// Bounded: when the terminal thread cannot keep up (a frozen ssh session blocks its writes, a
/// stopped terminal), the inbox would grow for as long as the engine talks, in this process,
/// often on the engine's own server. Past `limit` queued inputs, the queued engine events are
/// dropped and replaced by the engine's state now (one snapshot, newer than every one of
/// them) and a line that says so; later events apply on top of it as usual. Connection
/// changes are never dropped. Memory stays within `limit` inputs plus one snapshot, and the
/// screen is right once it draws again.
enum EventPump {
  /// Queued inputs before the engine events are folded into a snapshot: minutes of a busy
  /// engine's events (200 assets checked every second), far more than a frame ever sees.
  static let standardLimit = 50_000

  /// Posts each update to `inbox` until `updates` ends, then finishes the inbox.
  ///
  /// - Parameters:
  ///   - limit: queued inputs at which the engine events are folded (see the type).
  ///   - snapshot: the engine's state now (nil when it cannot be had: nothing is dropped then).
  static func run<Updates: AsyncSequence<EngineLinkUpdate, Never>>(
    _ updates: Updates, into inbox: EventInbox, limit: Int = standardLimit,
    snapshot: () async -> EngineSnapshot?
  ) async {
    for await update in updates {
      switch update {
      case .event(let event):
        guard inbox.postCounting(.engine(event)) >= limit, let now = await snapshot() else {
          continue
        }
        let dropped = inbox.removeQueued {
          if case .engine = $0 { true } else { false }
        }
        inbox.post(.snapshot(now))
        inbox.post(
          .log(
            EngineLogEntry(
              at: Date(), assetID: nil, level: .warning,
              message:
                "the screen fell behind: \(CountText.of(dropped, "engine event")) folded into the engine's state now"
            )))
      case .connected(_, let cut):
        inbox.post(input: .connection(.connected))
        // The engine cut this dashboard while it read nothing (a stopped or frozen session):
        // say so now that it reads again.
        if let cut { inbox.post(.log(cutEntry(cut, at: Date()))) }
      case .disconnected: inbox.post(input: .connection(.disconnected(since: Date())))
      }
    }
    inbox.finish()
  }

  /// The event line saying the engine had cut this dashboard (`too slow: …`) and that it is
  /// back with a fresh snapshot.
  static func cutEntry(_ cut: String, at now: Date) -> EngineLogEntry {
    EngineLogEntry(
      at: now, assetID: nil, level: .warning,
      message: TerminalText.sanitize(
        "disconnected: \(cut); reconnected with a fresh snapshot"))
  }
}
