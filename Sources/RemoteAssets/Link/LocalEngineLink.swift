import Foundation

/// An ``EngineLink`` to an ``AssetEngine`` in this process. The link owns the engine:
/// ``close()`` shuts it down.
package struct LocalEngineLink: EngineLink {
  /// The engine; created but not started (the link's ``open(only:sweep:)`` or ``watch()``
  /// starts it).
  package let engine: AssetEngine

  /// Creates a link over `engine`.
  package init(engine: AssetEngine) {
    self.engine = engine
  }

  package var socketPath: String? { nil }

  package func open(only: Set<String>?, sweep: StartSweep) async throws(EngineLinkError) {
    await engine.start(only: only, sweep: sweep)
  }

  package func watch() async {
    await engine.startProgressively()
    await engine.startAutoRefresh()
  }

  package func keepRefreshing() async {
    await engine.startAutoRefresh()
  }

  package func updates() async -> AsyncMapSequence<AsyncStream<EngineEvent>, EngineLinkUpdate> {
    // A map, not a second stream: no extra hop per event on the dashboard's hot path.
    await engine.events().map { .event($0) }
  }

  package func snapshot() async throws(EngineLinkError) -> EngineSnapshot {
    await engine.snapshot()
  }

  package func followsManifest() async throws(EngineLinkError) -> Bool {
    // A manifest, or signed targets (`tuf`): either is the rollout's check.
    engine.configuration.followsTargets
  }

  package func execute(_ command: AssetCommand) async throws(EngineLinkError) -> CommandReply {
    await engine.execute(command)
  }

  /// Nothing to do: this process's engine publishes whole statuses, history included.
  package func focus(_ id: String?) async {}

  package func close() async {
    await engine.shutdown()
  }
}
