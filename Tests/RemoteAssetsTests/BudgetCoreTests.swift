import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// The disk-budget core driven by events, checked by the actions it returns: passes after
/// commits (one at a time, one more when commits came meanwhile), what a measured size and a
/// sweep's report lead to, and the over-limit warning. No engine, disk or sleep.
@Suite struct BudgetCoreTests {
  static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

  static func generation(_ sha: String) -> Generation {
    Generation(sha256: sha, size: 2, version: nil, fetchedAt: t0)
  }

  static func entry(_ id: String, current: String?, previous: String? = nil) -> CacheEntry {
    var entry = CacheEntry(id: id, appVersion: "1")
    entry.current = current.map(generation)
    entry.previous = previous.map(generation)
    return entry
  }

  // MARK: - Passes after commits

  @Test func aCommitBeforeStartOrAfterShutdownStartsNoPass() {
    var core = BudgetCore()
    let r1 = core.committed(started: false, shutDown: false)
    #expect(!r1)
    let r2 = core.committed(started: true, shutDown: true)
    #expect(!r2)
    #expect(!core.passing && !core.again)
  }

  @Test func aCommitStartsPassesAndOneWhilePassesRunAsksForAnother() {
    var core = BudgetCore()
    let r3 = core.committed(started: true, shutDown: false)
    #expect(r3)
    #expect(core.passing)
    let r4 = core.committed(started: true, shutDown: false)
    #expect(!r4, "one at a time")
    #expect(core.again)
  }

  @Test func aPassMeasuresFirstAndForgetsTheCommitsBeforeIt() {
    var core = BudgetCore()
    _ = core.committed(started: true, shutDown: false)
    _ = core.committed(started: true, shutDown: false)
    let r5 = core.passBegins()
    #expect(r5 == [.measure(.beforePass)])
    #expect(!core.again)
  }

  @Test func aCommitDuringAPassWaitsItsTurnAndRunsOneMorePass() {
    var core = BudgetCore()
    _ = core.committed(started: true, shutDown: false)
    _ = core.passBegins()
    #expect(core.passEnded(shutDown: false).isEmpty, "no commit meanwhile: no pause")
    _ = core.committed(started: true, shutDown: false)
    #expect(core.passEnded(shutDown: false) == [.pause])
    let r6 = core.passesGoOn(shutDown: false)
    #expect(r6)
    _ = core.passBegins()
    let r7 = core.passesGoOn(shutDown: false)
    #expect(!r7)
    #expect(!core.passing, "passes stopped: the next commit starts them again")
    let r8 = core.committed(started: true, shutDown: false)
    #expect(r8)
  }

  @Test func shutdownEndsPassesEvenWithCommitsWaiting() {
    var core = BudgetCore()
    _ = core.committed(started: true, shutDown: false)
    _ = core.passBegins()
    _ = core.committed(started: true, shutDown: false)
    #expect(core.passEnded(shutDown: true).isEmpty)
    let r9 = core.passesGoOn(shutDown: true)
    #expect(!r9)
    #expect(!core.passing)
  }

  // MARK: - Measured sizes

  @Test func aPassUnderTheLimitOnlyRecordsAndAnnouncesTheSize() {
    var core = BudgetCore()
    core.warnedOverLimit = true
    let r10 = core.measured(900, for: .beforePass, limit: 1000)
    #expect(
      r10 == [
        .usage(CacheUsage(bytes: 900, limit: 1000), announce: true)
      ])
    #expect(core.usage == CacheUsage(bytes: 900, limit: 1000))
    #expect(!core.warnedOverLimit, "the cache fits again: the next excess warns again")
  }

  @Test func aPassOverTheLimitSweepsWithoutLeftovers() {
    var core = BudgetCore()
    let r11 = core.measured(1001, for: .beforePass, limit: 1000)
    #expect(r11 == [.sweep(leftovers: false)])
    #expect(core.usage == nil, "the sweep's report records the size")
  }

  @Test func aPassWithoutALimitRecordsTheSizeAndKeepsTheWarningState() {
    var core = BudgetCore()
    core.warnedOverLimit = true
    let r12 = core.measured(5000, for: .beforePass, limit: nil)
    #expect(
      r12 == [
        .usage(CacheUsage(bytes: 5000), announce: true)
      ])
    #expect(core.warnedOverLimit)
  }

  @Test func anUnchangedSizeGoesToTheMetricsButIsNotAnnounced() {
    var core = BudgetCore()
    let usage = CacheUsage(bytes: 10, limit: nil)
    let r13 = core.measured(10, for: .record(announce: true), limit: nil)
    #expect(
      r13 == [.usage(usage, announce: true)]
    )
    let r14 = core.measured(10, for: .record(announce: true), limit: nil)
    #expect(
      r14 == [
        .usage(usage, announce: false)
      ])
    let r15 = core.measured(10, for: .record(announce: true), limit: 20)
    #expect(
      r15 == [
        .usage(CacheUsage(bytes: 10, limit: 20), announce: true)
      ], "a new limit is a new usage")
  }

  @Test func aStartSweepsLeftoversAndAPartialStartOnlyMeasuresQuietly() {
    let core = BudgetCore()
    #expect(core.sweepAtStart() == [.sweep(leftovers: true)])
    #expect(core.measureOnly() == [.measure(.record(announce: false))])
  }

  // MARK: - Sweeps

  @Test func aSkippedSweepMeasuresAndAnnouncesOnlyAfterACommit() {
    var core = BudgetCore()
    let r16 = core.swept(nil, leftovers: true, limit: 1, previous: { _ in nil })
    #expect(
      r16 == [
        .measure(.record(announce: false))
      ])
    let r17 = core.swept(nil, leftovers: false, limit: 1, previous: { _ in nil })
    #expect(
      r17 == [
        .measure(.record(announce: true))
      ])
  }

  @Test func aSweepThatRemovedLeftoversLogsTheirCountsAtDebug() {
    var core = BudgetCore()
    var report = CacheStore.SweepReport()
    report.partials = 2
    report.blobs = 1
    let r18 = core.swept(report, leftovers: true, limit: nil, previous: { _ in nil })
    #expect(
      r18 == [
        .trace(
          .debug, "cache swept",
          [
            "partials": "2", "orphanedResumes": "0", "temps": "0", "blobs": "1",
            "chunkIndexes": "0",
          ])
      ])
    let r19 = core.swept(
      CacheStore.SweepReport(), leftovers: true, limit: nil, previous: { _ in nil })
    #expect(
      r19
        .isEmpty, "nothing removed, no budget: nothing to say")
  }

  @Test func anEvictedRollbackCopyLeavesMemoryOnlyWhenTheRecordStillHoldsIt() {
    var core = BudgetCore()
    var budget = CacheStore.BudgetReport(bytesBefore: 3000, bytes: 900)
    let b = Self.entry("b", current: "b2")
    budget.droppedPrevious = [
      "b": .init(sha256: "b1", entry: b),
      "a": .init(sha256: "a1", entry: Self.entry("a", current: "a2")),
    ]
    budget.removedEntries = ["old"]
    var report = CacheStore.SweepReport()
    report.budget = budget
    // "a" committed again since: its previous copy is another one now.
    let previous = ["a": "a9", "b": "b1"]
    let r20 = core.swept(report, leftovers: false, limit: 1000, previous: { previous[$0] })
    #expect(
      r20 == [
        .dropPrevious("b", entry: b),
        .log("b", .info, "rollback copy evicted: the cache is over its limit"),
        .log(nil, .info, "evicted old, no longer configured: the cache is over its limit"),
        .usage(CacheUsage(bytes: 900, limit: 1000), announce: true),
      ])
  }

  @Test func servedCopiesOverTheLimitWarnOnceUntilTheCacheFits() {
    var core = BudgetCore()
    var report = CacheStore.SweepReport()
    report.budget = CacheStore.BudgetReport(bytesBefore: 3000, bytes: 2048, meetsLimit: false)
    let warning = BudgetAction.log(
      nil, .warning,
      "the cache takes \(ByteCountText.format(2048)), over its limit of \(ByteCountText.format(1024)): the copies being served alone exceed it, and they are never evicted"
    )
    let first = core.swept(report, leftovers: true, limit: 1024, previous: { _ in nil })
    #expect(first == [.usage(CacheUsage(bytes: 2048, limit: 1024), announce: false), warning])
    let r21 = core.swept(report, leftovers: false, limit: 1024, previous: { _ in nil })
    #expect(
      !r21.contains(warning))
    report.budget?.meetsLimit = true
    report.budget?.bytes = 1000
    _ = core.swept(report, leftovers: false, limit: 1024, previous: { _ in nil })
    #expect(!core.warnedOverLimit)
    report.budget?.meetsLimit = false
    report.budget?.bytes = 2048
    let r22 = core.swept(report, leftovers: false, limit: 1024, previous: { _ in nil })
    #expect(
      r22.contains(warning))
  }

  @Test func aFailedSweepIsLoggedAndTheCacheMeasured() {
    let core = BudgetCore()
    #expect(
      core.sweepFailed("disk gone", leftovers: false) == [
        .trace(.warning, "cache sweep failed", ["error": "disk gone"]),
        .measure(.record(announce: true)),
      ])
  }

  @Test func aSweepKeepsEveryCurrentAndPreviousCopyAndNeverEvictsServedOnes() {
    let entries = [
      Self.entry("a", current: "a2", previous: "a1"), Self.entry("b", current: nil, previous: "b1"),
    ]
    let input = BudgetCore.sweepInput(
      ids: ["a", "b"], named: entries.map(BudgetCore.NamedBlobs.init), knowsAll: true, limit: 1000)
    #expect(input.keep == ["a2", "a1", "b1"])
    #expect(input.budget == CacheStore.Budget(limit: 1000, configured: ["a", "b"], served: ["a2"]))
  }

  @Test func anEngineForSomeAssetsTakesNoOtherAssetForUnconfigured() {
    let input = BudgetCore.sweepInput(
      ids: ["a"], named: [BudgetCore.NamedBlobs(Self.entry("a", current: "a2"))], knowsAll: false,
      limit: nil)
    #expect(input.budget.configured == nil)
  }
}
