import Foundation
import Synchronization

/// An ``EngineLink`` to another process's engine over its control socket (`--attach`).
///
/// A one-shot command's requests go over the connection ``open(only:sweep:)`` makes; a live
/// view's go over the connection its ``updates()`` keeps (reconnecting when the engine comes
/// back). ``snapshot()`` reads the live view's connection while it is up, else asks a new
/// connection, whose first event is the engine's state now.
package final class SocketEngineLink: EngineLink {
  /// The socket, or a cache directory holding `control.sock`.
  package let path: String
  private let session: ControlSession
  private struct State {
    var client: ControlClient?
    var kick: Task<Void, Never>?
  }
  private let state = Mutex(State())

  /// Creates a link; nothing connects until it is used.
  ///
  /// - Parameters:
  ///   - path: the socket, or a cache directory holding `control.sock`.
  ///   - retryInterval: how long a live view waits between connection attempts.
  package init(path: String, retryInterval: Duration = .milliseconds(500)) {
    self.path = path
    self.session = ControlSession(path: path, retryInterval: retryInterval)
  }

  package var socketPath: String? { ControlClient.resolveSocketPath(path) }

  package func open(only: Set<String>?, sweep: StartSweep) async throws(EngineLinkError) {
    // Its events are never read: the connection carries the command's requests and replies.
    let client = try await Self.connect(path, delivery: .none)
    let previous = state.withLock { state -> ControlClient? in
      defer { state.client = client }
      return state.client
    }
    await previous?.close()
  }

  package func watch() async {}

  package func keepRefreshing() async {
    // The engine refreshes on its own; this asks it to check everything now. The reply may take
    // as long as the slowest asset, so it is not waited for.
    let kick = Task { _ = try? await self.send(.refreshAll) }
    state.withLock { $0.kick = kick }
  }

  package func updates() async -> AsyncMapSequence<AsyncStream<ControlUpdate>, EngineLinkUpdate> {
    session.updates().map { update in
      switch update {
      case .connected(let hello): .connected(pid: hello.pid, cut: hello.cut)
      case .event(let event): .event(event)
      case .disconnected(let reason): .disconnected(reason: reason)
      }
    }
  }

  package func snapshot() async throws(EngineLinkError) -> EngineSnapshot {
    // While a live view is connected, its mirror is the state now: no new connection (and no
    // whole snapshot for the engine to encode) per look.
    if let live = session.currentSnapshot() { return live }
    let client = try await Self.connect(path)
    var first: EngineSnapshot?
    for await event in client.events {
      if case .snapshot(let snapshot) = event {
        first = snapshot
        break
      }
    }
    await client.close()
    guard let first else {
      throw .unreachable("the engine closed the connection before sending its state")
    }
    return first
  }

  package func followsManifest() async throws(EngineLinkError) -> Bool {
    // The socket does not say whether the config names a manifest; an engine that has checked
    // one (or holds its version) follows it, and one with a `tuf` block (it always carries a
    // trust summary) follows signed targets, checked or not yet.
    let info = try await snapshot().info
    return info.manifestVersion != nil || info.manifestCheckedAt != nil || info.trust != nil
  }

  package func execute(_ command: AssetCommand) async throws(EngineLinkError) -> CommandReply {
    try await send(command).commandReply
  }

  package func focus(_ id: String?) async { session.focus(id) }

  package func close() async {
    let (client, kick) = state.withLock { state in
      defer { state = State() }
      return (state.client, state.kick)
    }
    kick?.cancel()
    await client?.close()
  }

  /// Sends `command` over the one-shot connection, or else the live view's.
  private func send(_ command: AssetCommand) async throws(EngineLinkError) -> ControlReply {
    do {
      if let client = state.withLock({ $0.client }) { return try await client.send(command) }
      return try await session.send(command)
    } catch {
      throw .unreachable("\(command.commandWord) not sent: \(error)")
    }
  }

  private static func connect(
    _ path: String, delivery: ControlClient.EventDelivery = .all
  ) async throws(EngineLinkError) -> ControlClient {
    do {
      return try await ControlClient.connect(to: path, delivery: delivery)
    } catch {
      throw .unreachable("\(error)")
    }
  }
}
