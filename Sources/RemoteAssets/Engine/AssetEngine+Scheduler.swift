import Foundation

extension AssetEngine {
  /// Starts refreshing by itself: each asset every `refreshEvery` (live ones continuously), with
  /// backoff after failures; the manifest on the default interval. Idempotent.
  public func startAutoRefresh() {
    guard schedulerTask == nil, !lifecycle.isShutDown else { return }
    let now = clock.now()
    for id in order {
      guard let record = records[id], record.entry.nextAttemptAt == nil else { continue }
      // Never checked (or checked long ago): due now. Otherwise one interval after the check.
      let base = record.entry.checkedAt ?? .distantPast
      records[id]?.entry.nextAttemptAt = nextScheduledCheck(record.definition, after: base).map {
        max($0, now)
      }
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

  /// The wall clock went back by `step`: every asset's next check moves back with it, so none
  /// waits out the step on top of its interval or backoff (the manifest's schedule notices the
  /// step itself: ``ManifestSchedule``).
  func moveSchedulesBack(by step: TimeInterval) {
    for id in order {
      guard let next = records[id]?.entry.nextAttemptAt else { continue }
      records[id]?.entry.nextAttemptAt = next.addingTimeInterval(-step)
    }
    log(
      nil, .info,
      "the clock went back \(DurationText.format(step)); the assets' next checks moved back with it"
    )
  }

  /// Ends the scheduler's current sleep so it looks at every asset's schedule again now.
  func wakeScheduler() {
    scheduler.wake()
    schedulerSleeper?.cancel()
  }

  /// Performs what ``SchedulerState`` says is due: refreshes (each in its own task; the limiter
  /// bounds transfers), the manifest, and the periodic housekeeping. Returns how long the
  /// scheduler may sleep.
  @discardableResult
  func tick() -> TimeInterval {
    let now = clock.now()
    if let step = scheduler.noteClock(now) { moveSchedulesBack(by: step) }
    expireProbations(at: ClockReading(wall: now, uptime: clock.uptime()))
    let manifestDue =
      !lifecycle.paused && configuration.followsTargets && manifestSchedule.startIfDue(at: now)
    let actions = scheduler.due(
      at: now, paused: lifecycle.paused, manifestDue: manifestDue,
      freshnessWaiting: freshness.isDirty, freshnessNotes: freshness.notes.count)
    for action in actions {
      switch action {
      case .reloadExternalChanges:
        // Off the actor, one look at a time; a look still reading skips this turn.
        if !external.isLooking {
          external.isLooking = true
          Task {
            await self.reloadExternalChanges()
            self.external.isLooking = false
          }
        }
      case .flushFreshness:
        if freshness.writing == nil { Task { await self.flushFreshness() } }
      case .checkManifest:
        Task {
          await self.refreshManifest()
          self.wakeScheduler()
        }
      case .scanAssets:
        let (soonest, waiting) = scanSchedule(
          now: now, manifestPending: manifestDue || manifestSchedule.isChecking)
        scheduler.scanned(at: now, soonest: soonest, waiting: waiting)
      }
    }
    return scheduler.sleep(
      at: now, paused: lifecycle.paused,
      manifestNext: !configuration.followsTargets ? nil : manifestSchedule.nextAttempt)
  }

  /// Starts the refreshes due at `now`; returns when the next one is due, and whether a due one
  /// waits for the manifest.
  private func scanSchedule(now: Date, manifestPending: Bool) -> (soonest: Date, waiting: Bool) {
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
