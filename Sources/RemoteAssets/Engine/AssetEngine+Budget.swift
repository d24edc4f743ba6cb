import Foundation
import Logging

/// The engine's side of the disk budget: the decisions (``BudgetCore``, with what the cache
/// takes, ``CacheUsage``, shown in ``EngineInfo/cache``, the metrics and every front end) and
/// the passes under way. The config's `cacheLimit` is enforced by the sweep
/// (``CacheStore/sweep(keep:resumableIDs:budget:leftovers:)``).
struct CacheBudgetState: Sendable {
  /// What decides.
  var core = BudgetCore()
  /// The passes after commits under way.
  var pass: Task<Void, Never>?
  /// The pause between two passes (cancelled by shutdown; a running pass is never cancelled).
  var wait: Task<Void, Never>?

  /// The size last measured, with the limit.
  var usage: CacheUsage? { core.usage }
}

extension AssetEngine {
  /// Deletes, by name, what the engine left behind (partials nobody writes, kept partials
  /// nobody can resume, blobs no entry names, chunk indexes without their blob), then measures
  /// the cache and, over its `cacheLimit`, evicts rollback copies and unconfigured assets oldest
  /// use first. Runs at start; skipped (measured only) when another process holds the lock or
  /// the cache is read-only.
  func sweep() async {
    await runBudget(budget.core.sweepAtStart())
  }

  /// Measures the cache without sweeping (a start that loads only some assets).
  func measureCache() async {
    await runBudget(budget.core.measureOnly())
  }

  /// After a commit: measures the cache again and, with a limit, evicts what no longer fits.
  /// Passes are coalesced: one at a time, one more when commits came meanwhile, and at most one
  /// starting per ``budgetPassInterval``.
  func budgetAfterCommit() {
    guard budget.core.committed(started: lifecycle.started, shutDown: lifecycle.isShutDown)
    else { return }
    budget.pass = Task { await self.budgetPasses() }
  }

  private func budgetPasses() async {
    repeat {
      let started = ContinuousClock.now
      await runBudget(budget.core.passBegins())
      await runBudget(budget.core.passEnded(shutDown: lifecycle.isShutDown), passStarted: started)
    } while budget.core.passesGoOn(shutDown: lifecycle.isShutDown)
    budget.pass = nil
  }

  /// The least time between the starts of two passes after commits.
  static let budgetPassInterval: Duration = .milliseconds(500)

  /// Performs `actions` in order, feeding each measure's and sweep's result back to the core
  /// and performing what it answers.
  private func runBudget(
    _ actions: [BudgetAction], passStarted: ContinuousClock.Instant = .now
  ) async {
    var queue = actions[...]
    let store = self.store
    while let action = queue.popFirst() {
      var next: [BudgetAction] = []
      switch action {
      case .measure(let purpose):
        let bytes = await Self.offActor { store.measure() }
        next = budget.core.measured(bytes, for: purpose, limit: configuration.cacheLimit)
      case .sweep(let leftovers):
        next = await sweep(leftovers: leftovers)
      case .pause:
        let wait = Task { _ = try? await Task.sleep(until: passStarted + Self.budgetPassInterval) }
        budget.wait = wait
        await wait.value
        budget.wait = nil
      case .dropPrevious(let id, let entry):
        records[id]?.entry.previous = nil
        records[id]?.synced = entry
        records[id]?.syncedStamp = store.entryStamp(id)
        publishChange(id)
      case .log(let id, let level, let message):
        log(id, level, message)
      case .trace(let level, let message, let metadata):
        logger.log(level: level, "\(message)", metadata: metadata.mapValues { .string($0) })
      case .usage(let usage, let announce):
        metrics.cache(usage)
        if announce, hub.hasSubscribers { publish(.engineChanged(info())) }
      }
      queue = next[...] + queue
    }
  }

  /// A sweep off the actor (a directory scan); the store adds every blob named by an entry on
  /// disk, read under the commit lock, so a blob another process committed is never taken for
  /// garbage. Returns what the core answers to its result.
  private func sweep(leftovers: Bool) async -> [BudgetAction] {
    let store = self.store
    let limit = configuration.cacheLimit
    let input = BudgetCore.sweepInput(
      ids: records.keys, entries: records.values.map(\.entry), knowsAll: loading.only == nil,
      limit: limit)
    let resumable = Set(records.keys)
    do {
      let report = try await IOExecutor.run {
        try store.sweep(
          keep: input.keep, resumableIDs: resumable, budget: input.budget, leftovers: leftovers)
      }
      return budget.core.swept(
        report, leftovers: leftovers, limit: configuration.cacheLimit,
        previous: { self.records[$0]?.entry.previous?.sha256 })
    } catch {
      return budget.core.sweepFailed("\(error)", leftovers: leftovers)
    }
  }
}
