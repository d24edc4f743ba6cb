import Foundation

extension AssetEngine {
  /// Starts refreshing by itself: each asset every `refreshEvery` (live ones continuously), with
  /// backoff after failures; the manifest on the default interval. Idempotent.
  public func startAutoRefresh() {
    guard schedulerTask == nil, !lifecycle.isShutDown else { return }
    for check in SchedulerCore.firstChecks(order: order, records: records, at: clock.now()) {
      records[check.id]?.entry.nextAttemptAt = check.next
    }
    schedulerTask = Task {
      await self.claimProbations()
      await self.schedulerLoop()
    }
  }

  /// Stops refreshing by itself (transfers under way finish).
  public func stopAutoRefresh() {
    schedulerTask?.cancel()
    schedulerTask = nil
    schedulerSleeper?.cancel()
  }

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
    scheduler.wake()
    schedulerSleeper?.cancel()
  }

  /// Performs what ``SchedulerCore`` says is due: refreshes (each in its own task; the limiter
  /// bounds transfers), the manifest, and the periodic housekeeping. Returns how long the
  /// scheduler may sleep.
  @discardableResult
  func tick() -> TimeInterval {
    let now = clock.now()
    let manifestDue =
      !lifecycle.paused && configuration.followsTargets && manifestSchedule.startIfDue(at: now)
    let facts = SchedulerCore.Facts(
      paused: lifecycle.paused, manifestDue: manifestDue, freshnessWaiting: freshness.isDirty,
      freshnessNotes: freshness.notes.count, freshnessWriting: freshness.writing != nil,
      externalLooking: external.isLooking)
    let tick = scheduler.tick(at: now, facts, order: order, records: records)
    for check in tick.movedBack { records[check.id]?.entry.nextAttemptAt = check.next }
    for line in tick.logs { log(line.assetID, line.level, line.message) }
    expireProbations(at: ClockReading(wall: now, uptime: clock.uptime()))
    for action in tick.actions {
      switch action {
      case .reloadExternalChanges:
        external.isLooking = true
        Task {
          await self.reloadExternalChanges()
          self.external.isLooking = false
        }
      case .flushFreshness:
        Task { await self.flushFreshness() }
      case .checkManifest:
        Task {
          await self.refreshManifest()
          self.wakeScheduler()
        }
      case .scanAssets:
        let scan = SchedulerCore.scan(
          order: order, records: records, inFlight: Set(inFlight.keys), at: now,
          manifestPending: manifestDue || manifestSchedule.isChecking)
        for id in scan.due { startRefresh(id, manual: false) }
        scheduler.scanned(scan, at: now)
      }
    }
    return scheduler.sleep(
      at: now, paused: lifecycle.paused,
      manifestNext: !configuration.followsTargets ? nil : manifestSchedule.nextAttempt)
  }
}
