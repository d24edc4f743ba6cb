import Foundation

extension AssetEngine {
  /// Starts refreshing by itself: each asset every `refreshEvery` (live ones continuously), with
  /// backoff after failures; the manifest on the default interval. Idempotent.
  public func startAutoRefresh() {
    guard tasks.scheduler == nil, !core.lifecycle.isShutDown else { return }
    for check in SchedulerCore.firstChecks(
      order: core.order, records: core.records, at: clock.now())
    {
      core.records[check.id]?.entry.nextAttemptAt = check.next
    }
    tasks.scheduler = Task {
      await self.claimProbations()
      await self.schedulerLoop()
    }
  }

  /// Stops refreshing by itself (transfers under way finish).
  public func stopAutoRefresh() {
    tasks.scheduler?.cancel()
    tasks.scheduler = nil
    tasks.schedulerSleeper?.cancel()
  }

  /// Ticks, then sleeps until the next thing is due: the soonest asset, the manifest, the look
  /// for other processes' changes. A finished refresh or a command wakes it early.
  private func schedulerLoop() async {
    while !Task.isCancelled {
      let wait = await tick()
      let sleeper = Task { [clock] in _ = try? await clock.sleep(for: wait) }
      tasks.schedulerSleeper = sleeper
      await sleeper.value
      tasks.schedulerSleeper = nil
    }
  }

  /// Ends the scheduler's current sleep so it looks at every asset's schedule again now.
  func wakeScheduler() {
    core.scheduler.wake()
    tasks.schedulerSleeper?.cancel()
  }

  /// Performs what ``SchedulerCore`` says is due: refreshes (each in its own task; the limiter
  /// bounds transfers), the manifest, and the periodic housekeeping. Returns how long the
  /// scheduler may sleep.
  @discardableResult
  func tick() async -> TimeInterval {
    let now = clock.now()
    let (tick, manifestDue) = core.tick(at: now, followsTargets: configuration.followsTargets)
    for line in tick.logs { log(line.assetID, line.level, line.message) }
    await expireProbations(at: ClockReading(wall: now, uptime: clock.uptime()))
    await drive(tick.actions) { action in
      switch action {
      case .reloadExternalChanges:
        core.external.isLooking = true
        Task {
          await self.reloadExternalChanges()
          self.core.external.isLooking = false
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
          order: core.order, records: core.records, inFlight: Set(inFlight.keys), at: now,
          manifestPending: manifestDue || core.manifestSchedule.isChecking)
        for id in scan.due { startRefresh(id, manual: false) }
        core.scheduler.scanned(scan, at: now)
      }
      return []  // the housekeeping runs in tasks of its own; nothing is fed back
    }
    return core.scheduler.sleep(
      at: now, paused: core.lifecycle.paused,
      manifestNext: !configuration.followsTargets ? nil : core.manifestSchedule.nextAttempt)
  }
}
