import Foundation

extension EngineCore {
  /// A scheduler tick at `now`, where a wall-clock step reaches every wall-clock deadline: the
  /// scheduler notes the step (its timers due at once, the assets' next checks moved back with
  /// it, applied to the records here), the manifest's next check is due at once after a step
  /// back, then the manifest is started when due (`followsTargets`, not paused) and the
  /// periodic work due is returned. Probation, told of the same tick by the actor, decides on
  /// elapsed time; only the deadline it shows is read again from the wall clock at each tick.
  ///
  /// - Returns: What the actor performs: lines to log, the periodic work due; and whether this
  ///   tick started a manifest check (a due asset waits for it).
  mutating func tick(at now: Date, followsTargets: Bool) -> (
    tick: SchedulerCore.Tick, manifestDue: Bool
  ) {
    let step = scheduler.noteClock(now)
    if step != nil { manifestSchedule.clockSteppedBack(to: now) }
    let manifestDue =
      !lifecycle.paused && followsTargets && manifestSchedule.startIfDue(at: now)
    let facts = SchedulerCore.Facts(
      paused: lifecycle.paused, manifestDue: manifestDue, freshnessWaiting: freshness.isDirty,
      freshnessNotes: freshness.notes.count, freshnessWriting: freshness.writing != nil,
      externalLooking: external.isLooking)
    let tick = scheduler.tick(at: now, stepped: step, facts, order: order, records: records)
    for check in tick.movedBack { records[check.id]?.entry.nextAttemptAt = check.next }
    return (tick, manifestDue)
  }
}
