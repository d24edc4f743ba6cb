import Foundation
import Testing

@testable import RemoteAssets

/// The engine's scheduling decisions, driven directly: no engine, no I/O, no sleeps.
@Suite struct SchedulerStateTests {
  let t0 = Date(timeIntervalSince1970: 1_800_000_000)

  @Test func theFirstTickDoesEverythingThenIdleTicksLookAtNoAsset() {
    var state = SchedulerState()
    let first = state.due(at: t0, paused: false, manifestDue: true)
    #expect(first == [.reloadExternalChanges, .checkManifest, .scanAssets])
    state.scanned(at: t0, soonest: t0 + 3600, waiting: false)
    #expect(state.sleep(at: t0, paused: false, manifestNext: nil) == 1, "the look at others")
    for second in 1...9 {
      let now = t0 + Double(second)
      let actions = state.due(at: now, paused: false, manifestDue: false)
      #expect(actions == [.reloadExternalChanges])
    }
    // The safety net: every asset again after the full-scan interval.
    let net = state.due(at: t0 + 10, paused: false, manifestDue: false)
    #expect(net.contains(.scanAssets))
  }

  @Test func aDueAssetOrAWakeBringsTheLookBack() {
    var state = SchedulerState()
    _ = state.due(at: t0, paused: false, manifestDue: false)
    state.scanned(at: t0, soonest: t0 + 5, waiting: false)
    let early = state.due(at: t0 + 4, paused: false, manifestDue: false)
    let due = state.due(at: t0 + 5, paused: false, manifestDue: false)
    #expect(!early.contains(.scanAssets) && due.contains(.scanAssets))
    state.scanned(at: t0 + 5, soonest: t0 + 3600, waiting: false)
    state.wake()
    let woken = state.due(at: t0 + 5.5, paused: false, manifestDue: false)
    #expect(woken == [.scanAssets])
  }

  @Test func anAssetWaitingForTheManifestIsLookedAtAgainNextTick() {
    var state = SchedulerState()
    _ = state.due(at: t0, paused: false, manifestDue: true)
    state.scanned(at: t0, soonest: t0 + 3600, waiting: true)
    // The sleep still runs to the soonest check; the manifest's end wakes the scheduler.
    #expect(state.sleep(at: t0, paused: false, manifestNext: nil) == 1)
    let next = state.due(at: t0 + 0.5, paused: false, manifestDue: false)
    #expect(next == [.scanAssets])
  }

  @Test func pausedTicksOnlyKeepHouse() {
    var state = SchedulerState()
    let first = state.due(at: t0, paused: true, manifestDue: false, freshnessWaiting: true)
    #expect(first == [.reloadExternalChanges, .flushFreshness])
    #expect(state.sleep(at: t0, paused: true, manifestNext: t0 + 0.1) == 1)
    let later = state.due(at: t0 + 0.5, paused: true, manifestDue: false)
    #expect(later.isEmpty)
  }

  /// A 304's freshness reaches the journal soon (another process reads CHECKED from it), at
  /// most once per interval however many 304s arrive, and never when nothing waits.
  @Test func theJournalIsWrittenSoonAfterA304AtMostOnceASecond() {
    var state = SchedulerState()
    let interval = SchedulerState.freshnessFlushInterval
    #expect(interval == 1)
    _ = state.due(at: t0, paused: false, manifestDue: false)
    state.scanned(at: t0, soonest: t0 + 3600, waiting: false)
    let idle = state.due(at: t0 + 1, paused: false, manifestDue: false, freshnessWaiting: false)
    #expect(!idle.contains(.flushFreshness), "nothing waits: nothing written")
    // A 304 wakes the scheduler: the first note is written at once.
    let first = state.due(at: t0 + 1.2, paused: false, manifestDue: false, freshnessWaiting: true)
    #expect(first == [.flushFreshness])
    // More 304s within the interval are held back, and the sleep ends when they are due.
    let held = state.due(
      at: t0 + 1.1 + interval, paused: false, manifestDue: false, freshnessWaiting: true)
    #expect(held == [.reloadExternalChanges])
    let sleep = state.sleep(at: t0 + 1.1 + interval, paused: false, manifestNext: nil)
    #expect(abs(sleep - 0.1) < 1e-6, "until the held write, before the next look at others")
    let later = state.due(
      at: t0 + 1.2 + interval, paused: false, manifestDue: false, freshnessWaiting: true)
    #expect(later.contains(.flushFreshness))
    // Written and nothing new: the sleep is the look at others', not a spin.
    let quiet = state.due(at: t0 + 2.5, paused: false, manifestDue: false, freshnessWaiting: false)
    #expect(!quiet.contains(.flushFreshness))
    #expect(state.sleep(at: t0 + 2.5, paused: false, manifestNext: nil) > 0.001)
  }

  /// A large journal is written less often: one more second per 1,000 entries.
  @Test func aLargeJournalIsWrittenLessOften() {
    #expect(SchedulerState.freshnessFlushInterval(notes: 10) == 1)
    #expect(SchedulerState.freshnessFlushInterval(notes: 10_000) == 10)
    var state = SchedulerState()
    let first = state.due(
      at: t0, paused: false, manifestDue: false, freshnessWaiting: true, freshnessNotes: 5000)
    #expect(first.contains(.flushFreshness))
    let soon = state.due(
      at: t0 + 4, paused: false, manifestDue: false, freshnessWaiting: true, freshnessNotes: 5000)
    #expect(!soon.contains(.flushFreshness))
    let later = state.due(
      at: t0 + 5, paused: false, manifestDue: false, freshnessWaiting: true, freshnessNotes: 5000)
    #expect(later.contains(.flushFreshness))
  }

  @Test func theSleepEndsAtTheSoonestDueThing() {
    var state = SchedulerState()
    _ = state.due(at: t0, paused: false, manifestDue: false)
    state.scanned(at: t0, soonest: t0 + 0.25, waiting: false)
    #expect(abs(state.sleep(at: t0, paused: false, manifestNext: t0 + 0.5) - 0.25) < 1e-6)
    #expect(abs(state.sleep(at: t0, paused: false, manifestNext: t0 + 0.1) - 0.1) < 1e-6)
    // Nothing due in the past is slept for less than a millisecond.
    #expect(state.sleep(at: t0 + 9, paused: false, manifestNext: t0) == 0.001)
  }
}

/// The scheduler notices a wall clock stepped back, and nothing else.
@Suite struct ClockStepTests {
  let t0 = Date(timeIntervalSince1970: 1_800_000_000)

  @Test func onlyAStepBackBeyondTheToleranceIsReportedAndMakesEverythingDue() {
    var state = SchedulerState()
    #expect(state.noteClock(t0) == nil, "the first tick has nothing to compare")
    _ = state.due(at: t0, paused: false, manifestDue: false)
    state.scanned(at: t0, soonest: t0 + 3600, waiting: false)
    #expect(state.noteClock(t0 + 5000) == nil, "forward is not a step back")
    #expect(state.noteClock(t0 + 4999) == nil, "within the tolerance")
    #expect(state.noteClock(t0 + 4000) == 999)
    let actions = state.due(at: t0 + 4000, paused: false, manifestDue: false)
    #expect(actions == [.reloadExternalChanges, .scanAssets], "everything is looked at again")
  }
}

/// The manifest's single flight and backoff, driven directly.
@Suite struct ManifestScheduleTests {
  let t0 = Date(timeIntervalSince1970: 1_800_000_000)

  @Test func concurrentCallersJoinTheCheckUnderWay() {
    var schedule = ManifestSchedule()
    let starts = [schedule.begin(), schedule.begin(), schedule.begin()]
    #expect(starts == [.fetch, .join, .join])
    #expect(schedule.waiting == 2)
    schedule.succeeded(at: t0, interval: 30)
    #expect(schedule.waiting == 0 && !schedule.isChecking)
    let again = schedule.begin()
    #expect(again == .fetch, "a new call after the end starts a new check")
  }

  @Test func theSchedulerStartsAtMostOneCheckUntilItEnds() {
    var schedule = ManifestSchedule()
    let first = schedule.startIfDue(at: t0)
    #expect(first, "never checked: due")
    let whileChecking = schedule.startIfDue(at: t0 + 1)
    #expect(!whileChecking, "held off while the check runs")
    let start = schedule.begin()
    #expect(start == .fetch)
    schedule.succeeded(at: t0 + 2, interval: 30)
    let early = schedule.startIfDue(at: t0 + 31)
    let due = schedule.startIfDue(at: t0 + 32)
    #expect(!early && due)
  }

  /// A wall clock stepped back (an NTP correction, a VM restored) does not add the step to the
  /// wait: told of the step, a check scheduled from a time now in the future is due at once.
  @Test func aClockSteppedBackMakesTheCheckDueInsteadOfWaitingOutTheStep() {
    var schedule = ManifestSchedule()
    _ = schedule.startIfDue(at: t0)
    _ = schedule.begin()
    schedule.succeeded(at: t0, interval: 300)
    let onTime = schedule.startIfDue(at: t0 + 100)
    #expect(!onTime, "not due yet, clock moving forward")
    schedule.clockSteppedBack(to: t0 - 86_400)
    let afterStep = schedule.startIfDue(at: t0 - 86_400)
    #expect(afterStep, "a day back: due now, not in a day and five minutes")
    _ = schedule.begin()
    schedule.succeeded(at: t0 - 86_400, interval: 300)
    let next = schedule.startIfDue(at: t0 - 86_400 + 10)
    #expect(!next, "after that check, the interval counts from the new time")
  }

  @Test func failuresBackOffAndSayWhenTheErrorChanges() {
    var schedule = ManifestSchedule()
    let backoff = Backoff(base: 2, cap: 900)
    _ = schedule.begin()
    let first = schedule.failed(
      at: t0, message: "HTTP 503\u{1b}[2J", retryAfter: nil, backoff: backoff, random: 1)
    #expect(first.delay == 4 && first.errorChanged)
    #expect(schedule.error == "HTTP 503[2J", "sanitized for the terminal")
    _ = schedule.begin()
    let second = schedule.failed(
      at: t0, message: "HTTP 503\u{1b}[2J", retryAfter: nil, backoff: backoff, random: 1)
    #expect(second.delay == 8 && !second.errorChanged)
    #expect(schedule.nextAttempt == t0 + 8)
    _ = schedule.begin()
    let third = schedule.failed(
      at: t0, message: "HTTP 503", retryAfter: 600, backoff: backoff, random: 0)
    #expect(third.delay == 600, "Retry-After is honoured")
    _ = schedule.begin()
    let cleared = schedule.succeeded(at: t0, interval: 30)
    #expect(cleared, "the error went away")
    #expect(schedule.failures == 0 && schedule.error == nil)
  }
}

/// When an asset is tried again after a failure, decided directly.
@Suite struct RetryPlanTests {
  let t0 = Date(timeIntervalSince1970: 1_800_000_000)
  let backoff = Backoff()

  func plan(_ error: FetchError, _ refresh: RefreshInterval, failures: Int, random: Double)
    -> RetryPlan
  {
    RetryPlan.after(
      error, refresh: refresh, failures: failures, at: t0, backoff: backoff, random: random)
  }

  @Test func everyKindBacksOff() {
    let notFound = FetchError(.httpStatus, "HTTP 404", status: 404)
    let invalid = FetchError(.invalid, "not JSON")
    let storage = FetchError(.storage, "No space left on device")
    for error in [notFound, invalid, storage] {
      #expect(plan(error, .every(60), failures: 1, random: 0) == .at(t0 + 60))
      #expect(plan(error, .every(60), failures: 1, random: 1) == .at(t0 + 120))
      #expect(plan(error, .every(60), failures: 4, random: 1) == .at(t0 + 900), "the cap")
      #expect(plan(error, .every(7200), failures: 4, random: 1) == .at(t0 + 7200))
    }
    let refused = FetchError(.refused, "connection refused")
    #expect(plan(refused, .every(3600), failures: 1, random: 1) == .at(t0 + 4), "from 2 s")
    #expect(plan(refused, .every(3600), failures: 3, random: 1) == .at(t0 + 16))
    let busy = FetchError(.httpStatus, "HTTP 503", status: 503, retryAfter: 120)
    #expect(plan(busy, .every(60), failures: 1, random: 0) == .at(t0 + 120), "Retry-After")
  }

  @Test func manualLiveAndForbiddenHaveTheirOwnRules() {
    let notFound = FetchError(.httpStatus, "HTTP 404", status: 404)
    #expect(plan(notFound, .manual, failures: 3, random: 1) == .never)
    #expect(plan(notFound, .live, failures: 3, random: 1) == .at(t0 + LiveWatch.pollInterval))
    let forbidden = FetchError(.httpStatus, "HTTP 403", status: 403)
    #expect(plan(forbidden, .every(60), failures: 1, random: 1) == .blocked)
  }
}
