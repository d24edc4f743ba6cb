import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// The load core: the plan of a start (which assets, the batches, what is said about the cache,
/// the sweep) and what reading one asset's files leads to (the entry served, what is written
/// back, the reason a copy was discarded). No engine, origin, disk or sleep.
@Suite struct LoadCoreTests {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)
  static let folder = LoadCore.Folder()

  static func record(_ id: String = "flags", bundled: Bool = true) -> AssetRecord {
    AssetRecord(
      definition: AssetDefinition(
        id: id, remote: URL(string: "https://example.com/\(id)"),
        bundled: bundled ? .bytes(Data("{}".utf8)) : nil),
      entry: CacheEntry(id: id, appVersion: "2"))
  }

  static func entry(appVersion: String = "2", serving version: String? = "v1") -> CacheEntry {
    var entry = CacheEntry(id: "flags", appVersion: appVersion)
    entry.current = version.map {
      Generation(sha256: String(repeating: "a", count: 64), size: 2, version: $0, fetchedAt: now)
    }
    entry.checkedAt = now
    return entry
  }

  struct Unreadable: Error, CustomStringConvertible {
    var description: String { "the entry is not JSON" }
  }

  // MARK: - Plans

  @Test func aPlainStartLoadsEverythingInBatchesPublishedOnceAndSweeps() {
    var core = LoadCore(pending: ["a", "b", "c"], batchSize: 2)
    let plan = core.start(
      order: ["a", "b", "c"], only: nil, batchSize: nil, sweep: .beforeReturning,
      folder: Self.folder)
    #expect(
      plan
        == .init(
          order: ["a", "b", "c"], keep: nil, batches: [["a", "b"], ["c"]],
          publishesBatches: false, sweep: .beforeReturning))
    #expect(core.only == nil && core.pending == ["a", "b", "c"])
  }

  @Test func aPartialStartKeepsOnlyTheNamedAssetsAndNeverSweeps() {
    var core = LoadCore(pending: ["a", "b", "c"])
    let plan = core.start(
      order: ["a", "b", "c"], only: ["c", "a", "gone"], batchSize: nil, sweep: .beforeReturning,
      folder: Self.folder)
    #expect(plan.order == ["a", "c"], "config order")
    #expect(plan.keep == ["a", "c", "gone"])
    #expect(plan.batches == [["a", "c"]])
    #expect(plan.sweep == .none, "the sweep looks at everything")
    #expect(core.only == ["a", "c", "gone"] && core.pending == ["a", "c"])
  }

  @Test func aProgressiveStartPublishesEachBatchOfItsSize() {
    var core = LoadCore(pending: ["a", "b", "c"])
    let plan = core.start(
      order: ["a", "b", "c"], only: nil, batchSize: 1, sweep: .beforeReturning, folder: Self.folder)
    #expect(plan.batches == [["a"], ["b"], ["c"]])
    #expect(plan.publishesBatches && plan.sweep == .beforeReturning)
    #expect(core.batchSize == 1, "manifest-added assets are read the same way")
  }

  @Test func aStartThatMustNotTidyOnlyMeasures() {
    var core = LoadCore()
    let plan = core.start(
      order: ["a"], only: nil, batchSize: nil, sweep: .none, folder: Self.folder)
    #expect(plan.sweep == .none)
  }

  /// A one-shot refresh sweeps beside its requests; a start of some assets still never sweeps.
  @Test func aSweepAlongsideIsPlannedForAWholeStartOnly() {
    var whole = LoadCore()
    #expect(
      whole.start(order: ["a"], only: nil, batchSize: nil, sweep: .alongside, folder: Self.folder)
        .sweep == .alongside)
    var some = LoadCore()
    #expect(
      some.start(order: ["a"], only: ["a"], batchSize: nil, sweep: .alongside, folder: Self.folder)
        .sweep == .none)
  }

  @Test func aReadOnlyOrAdoptedCacheIsSaidFirst() {
    var core = LoadCore()
    let plan = core.start(
      order: [], only: nil, batchSize: nil, sweep: .beforeReturning,
      folder: .init(readOnlyReason: "permission denied", adopted: "/var/cache/app"))
    #expect(
      plan.notices == [
        EngineLogLine(
          level: .warning,
          message: "read-only cache (permission denied); serving intact copies, nothing is saved"),
        EngineLogLine(
          level: .info, message: "adopted the cache folder /var/cache/app (marker written)"),
      ])
    #expect(plan.batches.isEmpty)
  }

  @Test func batchesCoverEveryIdOnceInOrder() {
    #expect(LoadCore.batches([], size: 3).isEmpty)
    #expect(LoadCore.batches(["a", "b", "c"], size: 3) == [["a", "b", "c"]])
    #expect(LoadCore.batches(["a", "b", "c", "d"], size: 3) == [["a", "b", "c"], ["d"]])
    #expect(LoadCore.batches(["a", "b"], size: 0) == [["a"], ["b"]], "at least one a batch")
  }

  @Test func loadedAssetsShowAndTheEndShowsAll() {
    var core = LoadCore(pending: ["a", "b", "c"])
    core.loaded(["a", "b"])
    #expect(core.pending == ["c"])
    core.finished()
    #expect(core.pending.isEmpty)
  }

  // MARK: - Applying what was read

  @Test func anIntactEntryOfThisAppVersionIsServedAndNothingWritten() {
    let disk = Self.entry()
    let load = DiskLoad(bundledDigest: ("bb", 2), entry: .success(disk), blobProblem: nil)
    let applied = LoadCore.apply(
      load, to: "flags", record: Self.record(), appVersion: "2", at: Self.now)
    #expect(applied.record.entry == disk && applied.record.synced == disk)
    #expect(applied.record.bundledDigest?.sha256 == "bb")
    #expect(applied.rewrite == nil && applied.discarded == nil && applied.logs.isEmpty)
  }

  @Test func noEntryLeavesTheRecordEmptyAndWritesNothing() {
    let load = DiskLoad(bundledDigest: nil, entry: .success(nil), blobProblem: nil)
    let applied = LoadCore.apply(
      load, to: "flags", record: Self.record(), appVersion: "2", at: Self.now)
    #expect(applied.record.entry == CacheEntry(id: "flags", appVersion: "2"))
    #expect(applied.record.synced == nil && applied.rewrite == nil && applied.logs.isEmpty)
  }

  @Test func anotherAppVersionsEntryGivesWayToTheBundledCopyOverThatEntry() {
    let disk = Self.entry(appVersion: "1")
    let load = DiskLoad(bundledDigest: nil, entry: .success(disk), blobProblem: nil)
    let applied = LoadCore.apply(
      load, to: "flags", record: Self.record(), appVersion: "2", at: Self.now)
    let fresh = CacheEntry(id: "flags", appVersion: "2")
    #expect(applied.record.entry == fresh)
    #expect(applied.rewrite == LoadRewrite(id: "flags", entry: fresh, over: disk))
    #expect(
      applied.logs == [
        EngineLogLine(
          assetID: "flags", level: .info,
          message: "app version changed from 1 to 2; using the bundled copy")
      ])
    #expect(applied.discarded == nil)
  }

  @Test func aDamagedCopyIsDiscardedWithItsReasonAndRewrittenOverTheDamagedEntryOnly() {
    let disk = Self.entry()
    let load = DiskLoad(
      bundledDigest: nil, entry: .success(disk), blobProblem: "hash mismatch",
      stamp: BlobStamp(inode: 7, size: 1, modified: 1, changed: 1))
    let applied = LoadCore.apply(
      load, to: "flags", record: Self.record(bundled: false), appVersion: "2", at: Self.now)
    let said = SentenceText.joined(["hash mismatch", "no copy left"])
    #expect(applied.record.entry.current == nil && applied.record.entry.checkedAt == nil)
    #expect(
      applied.record.entry.lastError
        == AssetErrorRecord(kind: .corrupt, message: said, at: Self.now))
    #expect(applied.record.discardedAtLoad == said)
    #expect(applied.record.syncedStamp == load.stamp)
    #expect(applied.discarded == "hash mismatch")
    #expect(applied.logs == [EngineLogLine(assetID: "flags", level: .warning, message: said)])
    #expect(applied.rewrite == LoadRewrite(id: "flags", entry: applied.record.entry, over: disk))
  }

  @Test func anUnreadableEntryFallsBackToTheBundledCopyAndIsWrittenOverWhateverIsThere() {
    let load = DiskLoad(bundledDigest: nil, entry: .failure(Unreadable()), blobProblem: nil)
    let applied = LoadCore.apply(
      load, to: "flags", record: Self.record(), appVersion: "2", at: Self.now)
    let said = SentenceText.joined(["the entry is not JSON", "using the bundled copy"])
    #expect(applied.record.entry.current == nil)
    #expect(applied.record.entry.lastError?.message == said)
    #expect(applied.discarded == "the entry is not JSON")
    #expect(applied.rewrite?.over == nil, "nothing intact was read to write over")
  }

  @Test func onlyTheRewritesThatWereWrittenCountAsSynced() {
    let a = LoadRewrite(id: "a", entry: Self.entry(), over: nil)
    let b = LoadRewrite(id: "b", entry: Self.entry(), over: nil)
    let stamp = BlobStamp(inode: 1, size: 2, modified: 3, changed: 4)
    let synced = LoadCore.written([a, b], [(nil, nil), (Self.entry(), stamp)])
    #expect(synced.map(\.id) == ["b"], "another process replaced a's entry: it stays theirs")
    #expect(synced.first?.entry == Self.entry() && synced.first?.stamp == stamp)
  }

  @Test func journalFreshnessIsFoldedOnlyIntoAnEntryWithACopy() {
    var note = Self.entry()
    note.checkedAt = Self.now.addingTimeInterval(60)
    let merged = LoadCore.freshened(Self.entry(), note: note)
    #expect(merged == FreshnessJournal.merge(disk: Self.entry(), note: note))
    #expect(merged?.checkedAt == Self.now.addingTimeInterval(60))
    #expect(LoadCore.freshened(Self.entry(), note: nil) == nil)
    #expect(LoadCore.freshened(Self.entry(serving: nil), note: note) == nil)
  }
}
