import Foundation

/// Carries out one command on an engine and words the reply.
enum ControlCommandRunner {
  /// Runs `command` and returns the reply for request `id`.
  static func run(_ command: AssetCommand, id: Int?, on engine: AssetEngine) async -> ControlReply {
    let word = command.commandWord
    func results(_ list: [(id: String, outcome: RefreshOutcome)]) async -> ControlReply {
      let statuses = await engine.statuses()
      let items = list.map { item -> ControlRefreshResult in
        var error: String?
        if case .failed(let e) = item.outcome { error = e.message }
        return ControlRefreshResult(
          asset: item.id, outcome: item.outcome.kind,
          version: statuses.first { $0.id == item.id }?.version, error: error)
      }
      let failed = items.first { $0.error != nil }
      return ControlReply(
        id: id, ok: failed == nil, command: word,
        error: failed.map { "\($0.asset): \($0.error ?? "")" },
        results: items)
    }
    func verified(_ list: [VerifyResult]) -> ControlReply {
      let items = list.map {
        ControlVerifyResult(asset: $0.id, checked: $0.checked, problem: $0.problem)
      }
      let damaged = items.first { $0.problem != nil }
      return ControlReply(
        id: id, ok: damaged == nil, command: word,
        error: damaged.map { "\($0.asset): \($0.problem ?? "")" }, verified: items)
    }
    do {
      switch command {
      case .refresh(let asset):
        guard await engine.status(asset) != nil else {
          return ControlReply(id: id, ok: false, command: word, error: "no asset named \(asset)")
        }
        return await results([(asset, await engine.refresh(asset))])
      case .refreshAll:
        return await results(await engine.refreshAll())
      case .resetToBundled(let asset): try await engine.resetToBundled(asset)
      case .dropCache(let asset): try await engine.dropCache(asset)
      case .rollback(let asset): try await engine.rollback(asset)
      case .pauseAutoRefresh: await engine.pauseAutoRefresh()
      case .resumeAutoRefresh: await engine.resumeAutoRefresh()
      case .verify(let asset):
        guard await engine.status(asset) != nil else {
          return ControlReply(id: id, ok: false, command: word, error: "no asset named \(asset)")
        }
        return verified(await engine.verify([asset]))
      case .verifyAll:
        return verified(await engine.verify(nil))
      case .confirm(let asset): try await engine.confirm(asset)
      case .reject(let asset, let reason): try await engine.reject(asset, reason: reason)
      }
      return ControlReply(id: id, ok: true, command: word)
    } catch {
      return ControlReply(id: id, ok: false, command: word, error: "\(error)")
    }
  }
}
