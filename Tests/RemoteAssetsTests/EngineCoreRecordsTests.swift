import Foundation
import Testing

@testable import RemoteAssets

/// The record changes the whole core applies itself (``EngineCore`` `+Records`): freshness from
/// the journal and from 304s, and the next checks a reload sets. No engine, origin, disk or
/// sleep.
@Suite struct EngineCoreRecordsTests {
  static let t0 = SchedulerCoreTests.t0
  static let sha = String(repeating: "a", count: 64)

  /// A core with asset `a` (checked every 300 s, last at `t0`), holding a cached copy or not.
  static func core(cached: Bool = true, failures: Int = 0) -> EngineCore {
    var core = EngineCore(backoff: Backoff(base: 2, cap: 900))
    core.records = SchedulerCoreTests.records([("a", nil)])
    core.order = ["a"]
    core.records["a"]?.entry.checkedAt = t0
    core.records["a"]?.entry.consecutiveFailures = failures
    if cached {
      core.records["a"]?.entry.current = Generation(
        sha256: sha, size: 2, version: nil, fetchedAt: t0)
    }
    return core
  }

  /// A journal note: the same bytes checked at `at`.
  static func note(at: Date, sha: String = sha) -> CacheEntry {
    var note = CacheEntry(id: "a", appVersion: "1")
    note.current = Generation(sha256: sha, size: 2, version: nil, fetchedAt: t0)
    note.checkedAt = at
    return note
  }

  @Test func aNewerNoteOfTheSameBytesIsFoldedInAndKept() {
    var core = Self.core()
    core.applyFreshness(Self.note(at: Self.t0 + 60), to: "a")
    #expect(core.records["a"]?.entry.checkedAt == Self.t0 + 60)
    #expect(core.freshness.notes["a"]?.checkedAt == Self.t0 + 60, "kept for the next journal")
  }

  @Test func aNoteWithoutACachedCopyOrOfAnUnknownAssetChangesNothing() {
    var bare = Self.core(cached: false)
    bare.applyFreshness(Self.note(at: Self.t0 + 60), to: "a")
    #expect(bare.records["a"]?.entry.checkedAt == Self.t0)
    #expect(bare.freshness.notes.isEmpty)
    var core = Self.core()
    core.applyFreshness(Self.note(at: Self.t0 + 60), to: "gone")
    #expect(core.freshness.notes.isEmpty)
  }

  @Test func a304IsNotedForTheJournalOnly() {
    var core = Self.core()
    #expect(!core.freshness.isDirty)
    core.records["a"]?.entry.checkedAt = Self.t0 + 30
    core.noteFreshness("a")
    #expect(core.freshness.isDirty)
    #expect(core.freshness.notes["a"]?.checkedAt == Self.t0 + 30)
    var other = Self.core()
    other.noteFreshness("gone")
    #expect(!other.freshness.isDirty, "an unknown asset notes nothing")
  }

  @Test func anAddedAssetIsFirstCheckedOneIntervalAfterItsLastCheckButNotBeforeNow() {
    var core = Self.core()
    core.scheduleFirstCheck("a", scheduling: true, now: Self.t0 + 10)
    #expect(core.records["a"]?.entry.nextAttemptAt == Self.t0 + 300)
    var late = Self.core()
    late.scheduleFirstCheck("a", scheduling: true, now: Self.t0 + 900)
    #expect(late.records["a"]?.entry.nextAttemptAt == Self.t0 + 900)
    var manual = Self.core()
    manual.scheduleFirstCheck("a", scheduling: false, now: Self.t0 + 10)
    #expect(manual.records["a"]?.entry.nextAttemptAt == nil, "no scheduler: nothing set")
  }

  @Test func aChangedTransferIsDueNowWhenTheSchedulerRunsElseOneIntervalOn() {
    var core = Self.core()
    core.scheduleAfterTransferChange("a", scheduling: true, now: Self.t0 + 10)
    #expect(core.records["a"]?.entry.nextAttemptAt == Self.t0 + 10)
    var manual = Self.core()
    manual.scheduleAfterTransferChange("a", scheduling: false, now: Self.t0 + 10)
    #expect(manual.records["a"]?.entry.nextAttemptAt == Self.t0 + 310)
  }

  @Test func aNewIntervalCountsFromTheLastCheckUnlessABackoffStands() {
    var core = Self.core()
    core.records["a"]?.entry.nextAttemptAt = Self.t0 + 3600
    core.reschedule("a", scheduling: true, now: Self.t0 + 10)
    #expect(core.records["a"]?.entry.nextAttemptAt == Self.t0 + 300)
    var failing = Self.core(failures: 2)
    failing.records["a"]?.entry.nextAttemptAt = Self.t0 + 64
    failing.reschedule("a", scheduling: true, now: Self.t0 + 10)
    #expect(failing.records["a"]?.entry.nextAttemptAt == Self.t0 + 64, "the backoff stands")
  }

  // MARK: - Records added, replaced and removed

  static func definition(_ id: String) -> AssetDefinition {
    AssetDefinition(id: id, remote: URL(string: "https://example.com/\(id)"), refresh: .every(300))
  }

  @Test func recordsAreAddedInOrderWithEmptyEntriesOfTheAppVersion() {
    var core = Self.core()
    core.addRecords([Self.definition("c"), Self.definition("b")], appVersion: "7")
    #expect(core.order == ["a", "c", "b"])
    #expect(core.records["c"]?.entry == CacheEntry(id: "c", appVersion: "7"))
    #expect(core.records["a"]?.entry.current != nil, "the records there stay as they were")
  }

  @Test func aConfigurationBeforeTheStartReplacesEveryRecordNoneRead() {
    var core = Self.core()
    let configuration = EngineConfiguration(
      appVersion: "2", cacheDirectory: URL(fileURLWithPath: "/nonexistent"),
      assets: [Self.definition("x"), Self.definition("y")])
    core.replaceRecords(with: configuration)
    #expect(core.order == ["x", "y"])
    #expect(core.records["a"] == nil)
    #expect(core.records["x"]?.entry.appVersion == "2")
    #expect(core.loading.pending == ["x", "y"])
  }

  @Test func aRemovedRecordTakesItsPlaceAndItsFreshnessNoteWithIt() {
    var core = Self.core()
    core.addRecords([Self.definition("b")], appVersion: "1")
    core.applyFreshness(Self.note(at: Self.t0 + 60), to: "a")
    core.removeRecord("a")
    #expect(core.order == ["b"])
    #expect(core.records["a"] == nil)
    #expect(core.freshness.notes["a"] == nil)
  }

  @Test func aBundledCopyReadAgainCountsOnlyWhileTheDefinitionStillNamesIt() {
    var core = Self.core()
    let first = BundledSource.file(URL(fileURLWithPath: "/app/a.json"))
    let second = BundledSource.file(URL(fileURLWithPath: "/app/a2.json"))
    core.records["a"]?.definition.bundled = first
    core.bundledRead("a", of: first, digest: (Self.sha, 2))
    #expect(core.records["a"]?.bundledDigest?.sha256 == Self.sha)
    // A later reload named another file while this one was read: its digest is not taken.
    core.records["a"]?.definition.bundled = second
    core.bundledRead("a", of: first, digest: (String(repeating: "b", count: 64), 3))
    #expect(core.records["a"]?.bundledDigest?.sha256 == Self.sha)
    // No bundled copy any more: none compared.
    core.records["a"]?.definition.bundled = nil
    core.bundledRead("a", of: nil, digest: nil)
    #expect(core.records["a"]?.bundledDigest == nil)
  }
}
