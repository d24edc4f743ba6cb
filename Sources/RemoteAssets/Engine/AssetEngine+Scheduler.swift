import Foundation

extension AssetEngine {
  /// Starts refreshing by itself: each asset every `refreshEvery` (live ones continuously), with
  /// backoff after failures; the manifest on the default interval. Idempotent.
  public func startAutoRefresh() {
    guard schedulerTask == nil, !isShutDown else { return }
    let now = clock.now()
    for id in order {
      guard let record = records[id], record.entry.nextAttemptAt == nil else { continue }
      // Never checked (or checked long ago): due now. Otherwise one interval after the check.
      let base = record.entry.checkedAt ?? .distantPast
      records[id]?.entry.nextAttemptAt = nextScheduledCheck(record.definition, after: base).map {
        max($0, now)
      }
    }
    schedulerTask = Task { await self.schedulerLoop() }
  }

  /// Stops refreshing by itself (transfers under way finish).
  public func stopAutoRefresh() {
    schedulerTask?.cancel()
    schedulerTask = nil
    schedulerSleeper?.cancel()
  }

  /// How often another process's changes to the cache are looked for (a `stat` of `entries/`).
  static let externalCheckInterval: TimeInterval = 1
  /// How often freshness learned from 304s is written to the journal.
  static let freshnessFlushInterval: TimeInterval = 30

  /// Ticks, then sleeps until the next thing is due: the soonest asset, the manifest, the look
  /// for other processes' changes. A finished refresh or a command wakes it early.
  private func schedulerLoop() async {
    while !Task.isCancelled {
      let wait = tick()
      let sleeper = Task { [clock] in _ = try? await clock.sleep(for: wait) }
      schedulerSleeper = sleeper
      await sleeper.value
      schedulerSleeper = nil
    }
  }

  /// Ends the scheduler's current sleep so it looks at every asset's schedule again now.
  func wakeScheduler() {
    assetsDueAt = .distantPast
    schedulerSleeper?.cancel()
  }

  /// How often the scheduler looks at every asset even when nothing said a schedule changed (a
  /// safety net: every change that brings a check forward wakes it).
  static let fullScheduleScanInterval: TimeInterval = 10

  /// Starts every refresh that is due (each in its own task; the limiter bounds transfers) and
  /// does the periodic housekeeping that is due. Returns how long the scheduler may sleep.
  @discardableResult
  func tick() -> TimeInterval {
    ticks &+= 1
    let now = clock.now()
    if now >= nextExternalCheck {
      reloadExternalChanges()
      nextExternalCheck = now.addingTimeInterval(Self.externalCheckInterval)
    }
    if now >= nextFreshnessFlush {
      flushFreshness()
      nextFreshnessFlush = now.addingTimeInterval(Self.freshnessFlushInterval)
    }
    var wake = min(nextExternalCheck, nextFreshnessFlush)
    guard !paused else { return max(0.001, wake.timeIntervalSince(now)) }
    var manifestPending = manifestTask != nil
    if configuration.manifest != nil {
      if manifestNextAttempt.map({ $0 <= now }) ?? true {
        manifestNextAttempt = now.addingTimeInterval(3600)  // replaced when the fetch ends
        Task {
          await self.refreshManifest()
          self.wakeScheduler()
        }
        manifestPending = true
      }
      if let next = manifestNextAttempt { wake = min(wake, next) }
    }
    // Looking at every asset each second (for the look at other processes) cost an idle engine
    // of thousands of assets more than anything else: between the changes that wake the
    // scheduler, nothing is due before the soonest check the last look found.
    if now >= assetsDueAt || now >= nextFullScheduleScan {
      let (soonest, waiting) = scanSchedule(now: now, manifestPending: manifestPending)
      // A due asset waiting for the manifest is looked at again on the next tick.
      assetsDueAt = waiting ? now : soonest
      nextFullScheduleScan = now.addingTimeInterval(Self.fullScheduleScanInterval)
      wake = min(wake, soonest)
    } else {
      wake = min(wake, assetsDueAt)
    }
    return max(0.001, wake.timeIntervalSince(now))
  }

  /// Starts the refreshes due at `now`; returns when the next one is due, and whether a due one
  /// waits for the manifest.
  private func scanSchedule(now: Date, manifestPending: Bool) -> (soonest: Date, waiting: Bool) {
    scheduleScans &+= 1
    var soonest = Date.distantFuture
    var waiting = false
    for id in order {
      guard let record = records[id], inFlight[id] == nil, !record.autoRefreshBlocked,
        let next = record.entry.nextAttemptAt, record.definition.remote != nil
      else { continue }
      guard next <= now else {
        soonest = min(soonest, next)
        continue
      }
      // While the manifest is being checked, its answer may move the asset's URL or hash: wait
      // for it (the fetch wakes the scheduler) rather than fetch what may no longer be the target.
      if manifestPending, record.definition.refresh != .live {
        waiting = true
        continue
      }
      startRefresh(id, manual: false)
    }
    return (soonest, waiting)
  }
}
