import Foundation
import Logging

extension AssetEngine {
  /// At the end of a start (``BudgetCore/atStart(sweeps:)``): when every asset was loaded,
  /// deletes, by name, what the engine left behind (partials nobody writes, kept partials
  /// nobody can resume, blobs no entry names, chunk indexes without their blob), then measures
  /// the cache and, over its `cacheLimit`, evicts rollback copies and unconfigured assets oldest
  /// use first; skipped (measured only) when another process holds the lock or the cache is
  /// read-only. A start that loads only some assets measures the cache without sweeping.
  /// `.alongside` runs it in a task of its own (``EngineTasks/startSweep``, which shutdown waits
  /// for) and returns at once.
  func budgetAtStart(_ sweep: StartSweep) async {
    // A shutdown that came while the start was reading would not wait for a task made now.
    guard sweep == .alongside, !core.lifecycle.isShutDown else {
      return await runBudget(core.budget.atStart(sweeps: sweep != .none))
    }
    // The snapshot the start publishes has no usage yet: subscribers learn it when the sweep
    // ends.
    tasks.startSweep = Task {
      await runBudget(core.budget.atStart(sweeps: true))
      publish(.engineChanged(info()))
    }
  }

  /// After a commit: measures the cache again and, with a limit, evicts what no longer fits.
  /// Passes are coalesced: one at a time, one more when commits came meanwhile, and at most one
  /// starting per ``budgetPassInterval``.
  func budgetAfterCommit() {
    guard
      core.budget.committed(started: core.lifecycle.started, shutDown: core.lifecycle.isShutDown)
    else { return }
    tasks.budgetPass = Task { await self.budgetPasses() }
  }

  private func budgetPasses() async {
    repeat {
      let started = ContinuousClock.now
      await runBudget(core.budget.passBegins())
      await runBudget(
        core.budget.passEnded(shutDown: core.lifecycle.isShutDown), passStarted: started)
    } while core.budget.passesGoOn(shutDown: core.lifecycle.isShutDown)
    tasks.budgetPass = nil
  }

  /// The least time between the starts of two passes after commits.
  static let budgetPassInterval: Duration = .milliseconds(500)

  /// Performs `actions` in order, feeding each measure's and sweep's result back to the core
  /// and performing what it answers.
  private func runBudget(
    _ actions: [BudgetAction], passStarted: ContinuousClock.Instant = .now
  ) async {
    let store = self.store
    await drive(actions) { action in
      var next: [BudgetAction] = []
      switch action {
      case .measure(let purpose):
        let bytes = await Self.offActor { store.measure() }
        next = core.budget.measured(bytes, for: purpose, limit: configuration.cacheLimit)
      case .sweep(let leftovers):
        next = await sweep(leftovers: leftovers)
      case .pause:
        let wait = Task { _ = try? await Task.sleep(until: passStarted + Self.budgetPassInterval) }
        tasks.budgetWait = wait
        await wait.value
        tasks.budgetWait = nil
      case .dropPrevious(let id, let entry):
        core.records[id]?.entry.previous = nil
        core.records[id]?.synced = entry
        core.records[id]?.syncedStamp = store.entryStamp(id)
        publishChange(id)
      case .log(let id, let level, let message):
        log(id, level, message)
      case .trace(let level, let message, let metadata):
        logger.log(level: level, "\(message)", metadata: metadata.mapValues { .string($0) })
      case .usage(let usage, let announce):
        metrics.cache(usage)
        if announce { publish(.engineChanged(info())) }
      }
      return next
    }
  }

  /// A sweep off the actor (a directory scan); the store adds every blob named by an entry on
  /// disk, read under the commit lock, so a blob another process committed is never taken for
  /// garbage. Returns what the core answers to its result.
  ///
  /// Only the hashes the records name are read here; the sets the sweep keeps are built off
  /// the actor. At a start of thousands of assets, building them here held the actor for a
  /// millisecond before the first refresh's request could go out. The records themselves are
  /// not held across the sweep: a copy held while a refresh changes a record makes that
  /// change copy the whole table (2 KB a record).
  private func sweep(leftovers: Bool) async -> [BudgetAction] {
    let store = self.store
    let limit = configuration.cacheLimit
    let ids = core.records.keys
    let named = core.records.namedBlobs
    let knowsAll = core.loading.only == nil
    do {
      let report = try await IOExecutor.run {
        let input = BudgetCore.sweepInput(ids: ids, named: named, knowsAll: knowsAll, limit: limit)
        // The configured ids are the resumable ones: made once when the budget has them.
        return try store.sweep(
          keep: input.keep, resumableIDs: input.budget.configured ?? Set(ids),
          budget: input.budget, leftovers: leftovers)
      }
      // The records as they are after the sweep (commits may have come meanwhile).
      let after = core.records
      return core.budget.swept(
        report, leftovers: leftovers, limit: configuration.cacheLimit,
        previous: { after[$0]?.entry.previous?.sha256 })
    } catch {
      return core.budget.sweepFailed("\(error)", leftovers: leftovers)
    }
  }
}
