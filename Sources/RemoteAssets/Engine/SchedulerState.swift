import Foundation

/// The scheduler's decisions, as a value that does no I/O: at each tick it says what is due (the
/// look for other processes' changes, the freshness journal when 304s left something for it
/// (debounced: ``freshnessFlushInterval``), the manifest, a look at every
/// asset's schedule) and how long the scheduler may then sleep. The engine performs the actions.
///
/// Looking at every asset is the expensive part for an idle engine of thousands of assets, so it
/// is skipped until the soonest check the last look found is due, something woke the scheduler
/// (``wake()``: a finished refresh, a command, a new manifest), or ``fullScanInterval`` passed.
struct SchedulerState: Sendable, Equatable {
  /// How often another process's changes to the cache are looked for (a `stat` of `entries/`).
  static let externalCheckInterval: TimeInterval = 1
  /// At most how often freshness learned from 304s is written to the journal, while some is
  /// waiting: soon after a check, so another process (a CLI `status` beside a running
  /// dashboard) reads the same CHECKED, yet at most one small file write a second however many
  /// 304s arrive. Nothing is written while nothing waits.
  static let freshnessFlushInterval: TimeInterval = 1

  /// The journal's write interval for `notes` entries: ``freshnessFlushInterval``, and one more
  /// second per 1,000 entries beyond the first 1,000, so a large journal (about 260 bytes an
  /// entry) costs at most about 260 KB written a second, not its whole size.
  static func freshnessFlushInterval(notes: Int) -> TimeInterval {
    max(freshnessFlushInterval, Double(notes) / 1000)
  }
  /// How often every asset is looked at even when nothing said a schedule changed (a safety net:
  /// every change that brings a check forward wakes the scheduler).
  static let fullScanInterval: TimeInterval = 10

  /// What a tick should do, in this order.
  enum Action: Sendable, Equatable {
    /// Fold in entries other processes wrote.
    case reloadExternalChanges
    /// Write the freshness journal (only when freshness waits for it).
    case flushFreshness
    /// Start a manifest check.
    case checkManifest
    /// Start every due asset's refresh; report with ``scanned(at:soonest:waiting:)``.
    case scanAssets
  }

  private(set) var nextExternalCheck = Date.distantPast
  /// The soonest the journal may be written again (one interval after the last write).
  private(set) var nextFreshnessFlush = Date.distantPast
  /// When the journal held back this tick is written (nil: nothing waits, or it was written).
  private var heldFreshnessFlush: Date?
  /// When the soonest asset check is due, as the last look found.
  private(set) var assetsDueAt = Date.distantPast
  private(set) var nextFullScan = Date.distantPast
  /// The soonest check the look in this tick found (nil: no look this tick).
  private var scannedSoonest: Date?
  /// The wall clock at the last tick.
  private(set) var lastTick: Date?

  /// A wall clock that went back by more than this between two ticks was stepped (an NTP
  /// correction, a VM restored from a snapshot), not read a little out of order.
  static let clockStepTolerance: TimeInterval = 2

  /// Notes the wall clock at a tick. When it went back (by more than ``clockStepTolerance``)
  /// since the last tick, everything this state scheduled is due at once (nothing waits out
  /// the step) and the step is returned, for the engine to move the assets' schedules back.
  mutating func noteClock(_ now: Date) -> TimeInterval? {
    defer { lastTick = now }
    guard let last = lastTick, last.timeIntervalSince(now) > Self.clockStepTolerance else {
      return nil
    }
    nextExternalCheck = .distantPast
    nextFreshnessFlush = .distantPast
    heldFreshnessFlush = nil
    assetsDueAt = .distantPast
    nextFullScan = .distantPast
    return last.timeIntervalSince(now)
  }

  /// What is due at `now`. `manifestDue` is the manifest schedule's answer for this tick;
  /// `freshnessWaiting` whether freshness from 304s is not in the journal yet, and
  /// `freshnessNotes` how many entries the journal holds (its write interval grows with it).
  mutating func due(
    at now: Date, paused: Bool, manifestDue: Bool, freshnessWaiting: Bool = false,
    freshnessNotes: Int = 0
  ) -> [Action] {
    var actions: [Action] = []
    scannedSoonest = nil
    if now >= nextExternalCheck {
      actions.append(.reloadExternalChanges)
      nextExternalCheck = now.addingTimeInterval(Self.externalCheckInterval)
    }
    heldFreshnessFlush = nil
    if freshnessWaiting {
      if now >= nextFreshnessFlush {
        actions.append(.flushFreshness)
        nextFreshnessFlush = now.addingTimeInterval(
          Self.freshnessFlushInterval(notes: freshnessNotes))
      } else {
        heldFreshnessFlush = nextFreshnessFlush
      }
    }
    guard !paused else { return actions }
    if manifestDue { actions.append(.checkManifest) }
    if now >= assetsDueAt || now >= nextFullScan { actions.append(.scanAssets) }
    return actions
  }

  /// The look at every asset found the soonest check not yet due, and whether a due asset waits
  /// for the manifest (it is looked at again on the next tick).
  mutating func scanned(at now: Date, soonest: Date, waiting: Bool) {
    assetsDueAt = waiting ? now : soonest
    nextFullScan = now.addingTimeInterval(Self.fullScanInterval)
    scannedSoonest = soonest
  }

  /// Something may have brought a check forward: look at every asset on the next tick.
  mutating func wake() {
    assetsDueAt = .distantPast
  }

  /// How long the scheduler may sleep after this tick's actions (at least a millisecond).
  /// `manifestNext` is when the manifest is next due, when the engine has one.
  func sleep(at now: Date, paused: Bool, manifestNext: Date?) -> TimeInterval {
    var wake = min(nextExternalCheck, heldFreshnessFlush ?? .distantFuture)
    if !paused {
      if let manifestNext { wake = min(wake, manifestNext) }
      wake = min(wake, scannedSoonest ?? assetsDueAt)
    }
    return max(0.001, wake.timeIntervalSince(now))
  }
}
