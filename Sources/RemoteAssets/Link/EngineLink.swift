import Foundation

/// The one way a front end (the dashboard, `status`, `refresh`, `wait`, `verify`, `reset`,
/// `drop`, `rollback`) talks to an engine, wherever the engine runs.
///
/// Two conformances: ``LocalEngineLink`` drives an ``AssetEngine`` in this process;
/// ``SocketEngineLink`` drives another process's engine over its control socket. A command picks
/// one (`--attach` picks the socket) and does everything else through this protocol, so a new
/// piece of engine state or a new action is written once.
///
/// ```swift
/// let link = LocalEngineLink(engine: engine)
/// try await link.open(only: ["flags"], sweep: .none)
/// let results = try await link.refresh(["flags"])
/// await link.close()
/// ```
package protocol EngineLink: Sendable {
  /// What ``updates()`` returns.
  associatedtype Updates: AsyncSequence<EngineLinkUpdate, Never> & Sendable

  /// The control socket when the engine runs in another process; nil for this process's engine.
  var socketPath: String? { get }

  /// Readies the link for a one-shot command: this process's engine reads `only` those assets
  /// from its cache (nil: all) and tidies the cache as `sweep` says; an attached link connects.
  ///
  /// - Throws: ``EngineLinkError/unreachable(_:)`` when the engine cannot be reached.
  func open(only: Set<String>?, sweep: StartSweep) async throws(EngineLinkError)

  /// Readies the link for a live view and returns once the engine's state is loaded: this
  /// process's engine loads progressively (rows arrive batch by batch) and refreshes on its own
  /// from then on; an attached engine already does both.
  func watch() async

  /// Asks the engine to bring every asset up to date from now on: this process's engine starts
  /// its automatic refreshes; an attached engine (which refreshes on its own) is asked to check
  /// everything now rather than at its next interval.
  func keepRefreshing() async

  /// Everything the engine does from now on: a snapshot first, then its events, and for an
  /// attached engine the connection coming and going (it reconnects on its own).
  func updates() async -> Updates

  /// The engine's state now.
  ///
  /// - Throws: ``EngineLinkError/unreachable(_:)`` when the engine cannot be reached.
  func snapshot() async throws(EngineLinkError) -> EngineSnapshot

  /// Whether the engine follows a manifest or signed targets (so a rollout is judged against
  /// them, and `wait` counts only a check made after it started).
  ///
  /// - Throws: ``EngineLinkError/unreachable(_:)`` when the engine cannot be reached.
  func followsManifest() async throws(EngineLinkError) -> Bool

  /// Answers `command` through ``AssetEngine/execute(_:)``, the one path every command takes,
  /// here or in the engine's process; ``refresh(_:)``, ``verify(_:)`` and ``perform(_:)`` are
  /// built on it, so both conformances answer every command alike.
  ///
  /// - Throws: ``EngineLinkError/unreachable(_:)`` when the engine cannot be reached (a refusal
  ///   is a reply, not an error).
  func execute(_ command: AssetCommand) async throws(EngineLinkError) -> CommandReply

  /// Keeps `id`'s whole status, history included, current in ``updates()`` (nil: no asset):
  /// the dashboard's detail pane calls it for the asset it shows. An engine in this process
  /// publishes whole statuses anyway; an attached one sends changes without the history, so the
  /// link asks for it now and after each check of that asset.
  func focus(_ id: String?) async

  /// Ends the link: this process's engine shuts down; an attached link closes its connection
  /// (the engine goes on).
  func close() async
}

extension EngineLink {
  /// Refreshes `ids` one after another (every asset when empty) and reports each outcome with
  /// the version served afterwards. A failed refresh is an outcome, not an error.
  ///
  /// - Throws: ``EngineLinkError`` when the engine refused (an unknown asset) or cannot be
  ///   reached.
  package func refresh(_ ids: [String]) async throws(EngineLinkError) -> [ControlRefreshResult] {
    try await collect(ids.isEmpty ? [.refreshAll] : ids.map { .refresh(id: $0) }, \.results)
  }

  /// Re-reads and re-hashes the cached copies of `ids` (every asset when empty). A damaged copy
  /// is a result, not an error.
  ///
  /// - Throws: ``EngineLinkError`` when the engine refused (an unknown asset) or cannot be
  ///   reached.
  package func verify(_ ids: [String]) async throws(EngineLinkError) -> [ControlVerifyResult] {
    try await collect(ids.isEmpty ? [.verifyAll] : ids.map { .verify(id: $0) }, \.verified)
  }

  /// Carries out `command` and waits for it (a refresh's or a verify's failure shows in the
  /// asset's state, not here).
  ///
  /// - Throws: ``EngineLinkError`` when the engine refused (an unknown asset, a disk failure,
  ///   another process changed the copy) or cannot be reached.
  package func perform(_ command: AssetCommand) async throws(EngineLinkError) {
    let reply = try await execute(command)
    guard !reply.isRefusal else { throw .refused(reply.error ?? "the engine refused the command") }
  }

  /// Sends `commands` one after another and gathers the results each reply carries at `results`;
  /// a reply without them is the engine's refusal.
  private func collect<Result>(
    _ commands: [AssetCommand], _ results: KeyPath<CommandReply, [Result]?>
  ) async throws(EngineLinkError) -> [Result] {
    var gathered: [Result] = []
    for command in commands {
      let reply = try await execute(command)
      guard let list = reply[keyPath: results] else {
        throw .refused(reply.error ?? "the engine refused the command")
      }
      gathered += list
    }
    return gathered
  }
}

/// What ``EngineLink/updates()`` reports.
package enum EngineLinkUpdate: Sendable, Equatable {
  /// An attached link (re)connected to the engine of process `pid`; a snapshot event follows.
  /// `cut` says why the engine had cut this process's previous connection (`too slow: …`: it
  /// read nothing for too long), when it had.
  case connected(pid: Int32, cut: String? = nil)
  /// An engine event.
  case event(EngineEvent)
  /// An attached link lost its engine (or could not reach it); it keeps trying.
  case disconnected(reason: String)
}

/// Why an ``EngineLink`` could not do what it was asked.
package enum EngineLinkError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The engine said no; the text is its reason (from a server: not yet sanitized).
  case refused(String)
  /// The engine could not be reached, or the connection broke before it answered.
  case unreachable(String)

  /// The reason, in one sentence.
  package var description: String {
    switch self {
    case .refused(let reason), .unreachable(let reason): reason
    }
  }
}
