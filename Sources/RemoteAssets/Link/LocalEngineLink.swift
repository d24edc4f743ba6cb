import Foundation

/// An ``EngineLink`` to an ``AssetEngine`` in this process. The link owns the engine:
/// ``close()`` shuts it down.
package struct LocalEngineLink: EngineLink {
  /// The engine; created but not started (the link's ``open(only:sweeping:)`` or ``watch()``
  /// starts it).
  package let engine: AssetEngine

  /// Creates a link over `engine`.
  package init(engine: AssetEngine) {
    self.engine = engine
  }

  package var socketPath: String? { nil }

  package func open(only: Set<String>?, sweeping: Bool) async throws(EngineLinkError) {
    await engine.start(only: only, sweeping: sweeping)
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

  package func refresh(_ ids: [String]) async throws(EngineLinkError) -> [ControlRefreshResult] {
    var outcomes: [(id: String, outcome: RefreshOutcome)] = []
    if ids.isEmpty {
      outcomes = await engine.refreshAll()
    } else {
      for id in ids { outcomes.append((id, await engine.refresh(id))) }
    }
    let statuses = await engine.statuses()
    let versions = Dictionary(statuses.map { ($0.id, $0.version) }, uniquingKeysWith: { a, _ in a })
    return outcomes.map { item in
      var error: String?
      if case .failed(let failure) = item.outcome { error = failure.message }
      return ControlRefreshResult(
        asset: item.id, outcome: item.outcome.kind, version: versions[item.id] ?? nil,
        error: error)
    }
  }

  package func verify(_ ids: [String]) async throws(EngineLinkError) -> [ControlVerifyResult] {
    await engine.verify(ids.isEmpty ? nil : ids).map {
      ControlVerifyResult(asset: $0.id, checked: $0.checked, problem: $0.problem)
    }
  }

  package func perform(_ command: AssetCommand) async throws(EngineLinkError) {
    do {
      switch command {
      case .refresh(let id): _ = await engine.refresh(id)
      case .refreshAll: _ = await engine.refreshAll()
      case .resetToBundled(let id): try await engine.resetToBundled(id)
      case .dropCache(let id): try await engine.dropCache(id)
      case .rollback(let id): try await engine.rollback(id)
      case .pauseAutoRefresh: await engine.pauseAutoRefresh()
      case .resumeAutoRefresh: await engine.resumeAutoRefresh()
      case .verify(let id): _ = await engine.verify([id])
      case .verifyAll: _ = await engine.verify(nil)
      case .confirm(let id): try await engine.confirm(id)
      case .reject(let id, let reason): try await engine.reject(id, reason: reason)
      }
    } catch {
      throw .refused("\(error)")
    }
  }

  /// Nothing to do: this process's engine publishes whole statuses, history included.
  package func focus(_ id: String?) async {}

  package func close() async {
    await engine.shutdown()
  }
}
