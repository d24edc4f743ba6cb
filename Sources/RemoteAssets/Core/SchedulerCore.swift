import Foundation

/// What the scheduler does when, as a value that does no I/O and never reads a clock: each tick
/// comes with the wall clock and the facts the engine holds (paused, the manifest, the journal,
/// a look under way), and returns what the engine performs, in order (``Tick``). It
/// keeps the timing of its periodic work in ``SchedulerState``.
///
/// Wall-clock steps are handled here, once per tick, for every deadline the scheduler keeps: its
/// own timers are due at once (``SchedulerState/noteClock(_:)``) and the assets' next checks move
/// back with the step (``movedBack(by:order:records:)``); the probation core, told of every
/// tick right after, measures its deadlines in elapsed time. ``EngineCore/tick(at:followsTargets:)``
/// passes the step it notices (``noteClock(_:)``) on to the manifest's schedule.
struct SchedulerCore: Sendable, Equatable {
  /// What the engine holds when a tick comes.
  struct Facts: Sendable, Equatable {
    /// Automatic refresh is paused.
    var paused = false
    /// The manifest's schedule started a check for this tick.
    var manifestDue = false
    /// Freshness from 304s waits for the journal.
    var freshnessWaiting = false
    /// How many entries the journal holds.
    var freshnessNotes = 0
    /// A journal write is running.
    var freshnessWriting = false
    /// A look for other processes' changes is running.
    var externalLooking = false
  }

  /// What a look at every asset's schedule found at a tick.
  struct Scan: Sendable, Equatable {
    /// The assets due now, in order: their refreshes start.
    var due: [String] = []
    /// The soonest check not yet due (`distantFuture`: none).
    var soonest = Date.distantFuture
    /// Whether a due asset waits for the manifest check under way.
    var waiting = false
  }

  /// The timers of the periodic work.
  private(set) var state = SchedulerState()

  /// What a tick at `now` does, in order: the assets' next checks moved back by a wall-clock
  /// step (with the line saying so), then the periodic work due.
  struct Tick: Sendable, Equatable {
    /// The next checks moved back by a step the wall clock took back (empty: no step).
    var movedBack: [Check] = []
    /// The lines logged.
    var logs: [EngineLogLine] = []
    /// The periodic work due, in order.
    var actions: [SchedulerAction] = []
  }

  /// An asset's next check.
  struct Check: Sendable, Equatable {
    /// The asset.
    var id: String
    /// When it is due.
    var next: Date
  }

  /// A tick at `now` over the assets in `order`: a wall-clock step first (every timer due at
  /// once, every next check moved back with it), then what is due.
  mutating func tick(at now: Date, _ facts: Facts, order: [String], records: RecordTable)
    -> Tick
  {
    tick(at: now, stepped: noteClock(now), facts, order: order, records: records)
  }

  /// How far the wall clock went back since the last tick (nil: no step), read once per tick;
  /// the scheduler's own timers are due at once after one.
  mutating func noteClock(_ now: Date) -> TimeInterval? {
    state.noteClock(now)
  }

  /// A tick at `now` whose wall-clock step `step` was already noted (``noteClock(_:)``).
  mutating func tick(
    at now: Date, stepped step: TimeInterval?, _ facts: Facts, order: [String],
    records: RecordTable
  ) -> Tick {
    var tick = Tick()
    if let step {
      tick.movedBack = Self.movedBack(by: step, order: order, records: records)
      tick.logs.append(
        EngineLogLine(
          level: .info,
          message:
            "the clock went back \(DurationText.format(step)); the assets' next checks moved back with it"
        ))
    }
    let due = state.due(
      at: now, paused: facts.paused, manifestDue: facts.manifestDue,
      freshnessWaiting: facts.freshnessWaiting, freshnessNotes: facts.freshnessNotes)
    for action in due {
      switch action {
      // Off the actor, one look at a time; a look still reading skips this turn.
      case .reloadExternalChanges where !facts.externalLooking:
        tick.actions.append(.reloadExternalChanges)
      case .flushFreshness where !facts.freshnessWriting: tick.actions.append(.flushFreshness)
      case .checkManifest: tick.actions.append(.checkManifest)
      case .scanAssets: tick.actions.append(.scanAssets)
      case .reloadExternalChanges, .flushFreshness: break
      }
    }
    return tick
  }

  /// How long the scheduler may sleep after a tick at `now` (at least a millisecond);
  /// `manifestNext` is when the manifest is next due, when the engine follows one.
  func sleep(at now: Date, paused: Bool, manifestNext: Date?) -> TimeInterval {
    state.sleep(at: now, paused: paused, manifestNext: manifestNext)
  }

  /// The look at every asset found `scan` at `now`.
  mutating func scanned(_ scan: Scan, at now: Date) {
    state.scanned(at: now, soonest: scan.soonest, waiting: scan.waiting)
  }

  /// Something may have brought a check forward: look at every asset on the next tick.
  mutating func wake() {
    state.wake()
  }

  // MARK: - Assets' schedules

  /// Which assets are due at `now`: each with a remote, a next check at or before `now`, no
  /// refresh in flight and automatic refresh not blocked. While the manifest is being checked
  /// (`manifestPending`), its answer may move an asset's URL or hash: a due asset other than a
  /// live one waits for it rather than fetch what may no longer be the target.
  static func scan(
    order: [String], records: RecordTable, inFlight: Set<String>, at now: Date,
    manifestPending: Bool
  ) -> Scan {
    var scan = Scan()
    for id in order where !inFlight.contains(id) {
      // Read in place (``RecordTable/scheduling(_:)``): a copy of every record (about 2 KB each)
      // was most of an idle engine's periodic look at thousands of assets.
      guard let look = records.scheduling(id), look.scheduled, let next = look.next
      else { continue }
      guard next <= now else {
        scan.soonest = min(scan.soonest, next)
        continue
      }
      if manifestPending, !look.live {
        scan.waiting = true
        continue
      }
      scan.due.append(id)
    }
    return scan
  }

  /// The first schedule when automatic refresh starts at `now`: an asset never checked (or
  /// checked long ago) is due now, another one interval after its check. Assets that already
  /// have a next check keep it; manual ones get none.
  static func firstChecks(order: [String], records: RecordTable, at now: Date) -> [Check] {
    var checks: [Check] = []
    for id in order {
      guard let record = records[id], record.entry.nextAttemptAt == nil,
        let next = AssetRefreshLifecycle.nextCheck(
          record.definition.refresh, after: record.entry.checkedAt ?? .distantPast)
      else { continue }
      checks.append(Check(id: id, next: max(next, now)))
    }
    return checks
  }

  /// Every asset's next check moved back by a wall-clock `step`, so none waits out the step on
  /// top of its interval or backoff.
  static func movedBack(by step: TimeInterval, order: [String], records: RecordTable) -> [Check] {
    var moved: [Check] = []
    for id in order {
      guard let next = records[id]?.entry.nextAttemptAt else { continue }
      moved.append(Check(id: id, next: next.addingTimeInterval(-step)))
    }
    return moved
  }
}
