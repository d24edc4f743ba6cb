import Foundation
import Synchronization

/// What a ``ControlSession`` reports.
package enum ControlUpdate: Sendable, Equatable {
  /// A connection was made (again); a snapshot event follows.
  case connected(ControlHello)
  /// An engine event.
  case event(EngineEvent)
  /// The connection was lost or could not be made; the session keeps trying.
  case disconnected(reason: String)
}

/// A control connection that comes back: it connects, reports the engine's events, and when
/// the engine goes away reports that once and reconnects as soon as the socket answers again.
///
/// ```swift
/// let session = ControlSession(path: "/var/cache/app")
/// for await update in session.updates() { … }
/// ```
package final class ControlSession: Sendable {
  /// The socket, or a cache directory holding `control.sock`.
  public let path: String
  /// How long to wait between connection attempts.
  public let retryInterval: Duration

  private let current = Mutex<ControlClient?>(nil)
  /// The asset whose history the watcher wants kept current (see ``focus(_:)``).
  private let focused = Mutex<String?>(nil)

  /// The engine's state as the connection of ``updates()`` knows it now; nil while none is
  /// up (or before its snapshot arrived).
  package func currentSnapshot() -> EngineSnapshot? {
    current.withLock { $0 }?.currentSnapshot()
  }

  /// Creates a session; nothing connects until ``updates()`` is iterated.
  public init(path: String, retryInterval: Duration = .milliseconds(500)) {
    self.path = path
    self.retryInterval = retryInterval
  }

  /// Connects and reconnects until the consuming task is cancelled or stops iterating.
  /// A refusal (another user, an unsupported protocol) is reported and then retried like any
  /// other outage.
  public func updates() -> AsyncStream<ControlUpdate> {
    let (stream, continuation) = AsyncStream.makeStream(of: ControlUpdate.self)
    let task = Task {
      var lastReason: String?
      while !Task.isCancelled {
        do {
          let client = try await ControlClient.connect(to: path)
          current.withLock { $0 = client }
          if let focus = focused.withLock({ $0 }) { client.focus(focus) }
          lastReason = nil
          continuation.yield(.connected(client.hello))
          for await event in client.events { continuation.yield(.event(event)) }
          current.withLock { $0 = nil }
          await client.close()
          if Task.isCancelled { break }
          let reason = "the engine closed the connection"
          lastReason = reason
          continuation.yield(.disconnected(reason: reason))
        } catch {
          let reason = "\(error)"
          if reason != lastReason {
            lastReason = reason
            continuation.yield(.disconnected(reason: reason))
          }
        }
        try? await Task.sleep(for: retryInterval)
      }
      if let client = current.withLock({ c -> ControlClient? in
        defer { c = nil }
        return c
      }) {
        await client.close()
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  /// Keeps `id`'s history current on this connection and the ones after it (nil: none).
  public func focus(_ id: String?) {
    focused.withLock { $0 = id }
    current.withLock { $0 }?.focus(id)
  }

  /// Sends a command over the current connection.
  ///
  /// - Throws: ``ControlClientError/disconnected`` when there is none.
  public func send(_ command: AssetCommand) async throws -> ControlReply {
    guard let client = current.withLock({ $0 }) else { throw ControlClientError.disconnected }
    return try await client.send(command)
  }
}
