import Foundation

/// The engine's side of the disk budget: what the cache takes (``CacheUsage``, in
/// ``EngineInfo/cache``, the metrics and every front end) and the config's `cacheLimit`,
/// enforced by the sweep (``CacheStore/sweep(keep:resumableIDs:budget:leftovers:)``).
struct CacheBudgetState: Sendable {
  /// The size last measured, with the limit.
  var usage: CacheUsage?
  /// Whether the "served copies alone exceed the limit" warning was logged (once, until the
  /// cache fits again).
  var warnedOverLimit = false
  /// The pass after commits under way, and whether another commit asked for one meanwhile.
  var pass: Task<Void, Never>?
  var again = false
  /// The pause between two passes (cancelled by shutdown; a running pass is never cancelled).
  var wait: Task<Void, Never>?
}

extension AssetEngine {
  /// Deletes, by name, what the engine left behind (partials nobody writes, kept partials
  /// nobody can resume, blobs no entry names, chunk indexes without their blob), then measures
  /// the cache and, over its `cacheLimit`, evicts rollback copies and unconfigured assets oldest
  /// use first. Runs at start; skipped (measured only) when another process holds the lock or
  /// the cache is read-only.
  func sweep() async {
    await sweep(leftovers: true)
  }

  /// After a commit: measures the cache again and, with a limit, evicts what no longer fits.
  /// Passes are coalesced: one at a time, one more when commits came meanwhile, and at most one
  /// starting per ``budgetPassInterval``.
  func budgetAfterCommit() {
    guard lifecycle.started, !lifecycle.isShutDown else { return }
    if budget.pass != nil {
      budget.again = true
      return
    }
    budget.pass = Task { await self.budgetPasses() }
  }

  private func budgetPasses() async {
    repeat {
      budget.again = false
      let started = ContinuousClock.now
      await sweep(leftovers: false)
      // A pass lists and stats every file of the cache: the commits of a burst (a first sync of
      // thousands of assets) share passes, at most one starting per interval. Shutdown cancels
      // the wait.
      if budget.again, !lifecycle.isShutDown {
        let wait = Task { _ = try? await Task.sleep(until: started + Self.budgetPassInterval) }
        budget.wait = wait
        await wait.value
        budget.wait = nil
      }
    } while budget.again && !lifecycle.isShutDown
    budget.pass = nil
  }

  /// The least time between the starts of two passes after commits.
  static let budgetPassInterval: Duration = .milliseconds(500)

  private func sweep(leftovers: Bool) async {
    let store = self.store
    let limit = configuration.cacheLimit
    // A pass after a commit measures first (no lock, no entry read), and goes on only when the
    // cache is over its limit.
    if !leftovers {
      let bytes = await Self.offActor { store.measure() }
      guard let limit, bytes > limit else {
        noteUsage(bytes, announce: true)
        if limit != nil { budget.warnedOverLimit = false }
        return
      }
    }
    var keep = Set<String>()
    var served = Set<String>()
    for record in records.values {
      if let sha = record.entry.current?.sha256 {
        keep.insert(sha)
        served.insert(sha)
      }
      if let sha = record.entry.previous?.sha256 { keep.insert(sha) }
    }
    let resumable = Set(records.keys)
    // An engine started for some assets only (`refresh ID`, `verify ID`) does not know the
    // others: it must not take them for unconfigured and evict the copies other engines serve.
    let rule = CacheStore.Budget(
      limit: limit, configured: loading.only == nil ? Set(records.keys) : nil, served: served)
    let kept = keep
    do {
      // The store adds every blob named by an entry on disk, read under the commit lock, so a
      // blob another process committed is never taken for garbage. A directory scan: off the
      // actor.
      let swept = try await IOExecutor.run {
        try store.sweep(keep: kept, resumableIDs: resumable, budget: rule, leftovers: leftovers)
      }
      guard let report = swept else {
        let bytes = await Self.offActor { store.measure() }
        noteUsage(bytes, announce: !leftovers)
        return
      }
      var cleaned = report
      cleaned.budget = nil
      if cleaned != CacheStore.SweepReport() {
        logger.debug(
          "cache swept",
          metadata: [
            "partials": "\(report.partials)", "orphanedResumes": "\(report.orphanedResumes)",
            "temps": "\(report.temps)", "blobs": "\(report.blobs)",
            "chunkIndexes": "\(report.chunkIndexes)",
          ])
      }
      if let budget = report.budget { apply(budget, announce: !leftovers) }
    } catch {
      logger.warning("cache sweep failed", metadata: ["error": "\(error)"])
      let bytes = await Self.offActor { store.measure() }
      noteUsage(bytes, announce: !leftovers)
    }
  }

  /// Brings memory in line with what the budget evicted, and says so (`announce`: tell
  /// subscribers of the new size; at start the snapshot that follows does).
  private func apply(_ report: CacheStore.BudgetReport, announce: Bool) {
    for (id, dropped) in report.droppedPrevious.sorted(by: { $0.key < $1.key }) {
      // Only the copy evicted: a commit since then may have made another one previous.
      guard records[id]?.entry.previous?.sha256 == dropped.sha256 else { continue }
      records[id]?.entry.previous = nil
      records[id]?.synced = dropped.entry
      records[id]?.syncedStamp = store.entryStamp(id)
      publishChange(id)
      log(id, .info, "rollback copy evicted: the cache is over its limit")
    }
    for id in report.removedEntries {
      log(nil, .info, "evicted \(id), no longer configured: the cache is over its limit")
    }
    noteUsage(report.bytes, announce: announce)
    guard let limit = configuration.cacheLimit else { return }
    if report.meetsLimit {
      budget.warnedOverLimit = false
    } else if !budget.warnedOverLimit {
      budget.warnedOverLimit = true
      log(
        nil, .warning,
        "the cache takes \(ByteCountText.format(report.bytes)), over its limit of \(ByteCountText.format(limit)): the copies being served alone exceed it, and they are never evicted"
      )
    }
  }

  /// Records a measured size: shown in ``info()``, the metrics, and (with `announce`) to
  /// subscribers.
  private func noteUsage(_ bytes: Int64, announce: Bool) {
    let usage = CacheUsage(bytes: bytes, limit: configuration.cacheLimit)
    metrics.cache(usage)
    guard usage != budget.usage else { return }
    budget.usage = usage
    if announce, hub.hasSubscribers { publish(.engineChanged(info())) }
  }
}

extension AssetEngine {
  /// Measures the cache without sweeping (a start that loads only some assets).
  func measureCache() async {
    let store = self.store
    let bytes = await Self.offActor { store.measure() }
    noteUsage(bytes, announce: false)
  }
}
