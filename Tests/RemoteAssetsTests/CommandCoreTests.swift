import AssetModel
import Foundation
import Testing

@testable import RemoteAssets

/// The command core: which step answers each command, the refusals (unknown ids, rollback onto
/// nothing, a rejected, damaged or replaced copy), the entry changes and the replies. No
/// engine, origin, disk or sleep.
@Suite struct CommandCoreTests {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)

  static func records(_ ids: String...) -> RecordTable {
    var table = RecordTable()
    for id in ids {
      let definition = AssetDefinition(
        id: id, remote: URL(string: "https://example.com/\(id)"), refresh: .every(300))
      table[id] = AssetRecord(definition: definition, entry: CacheEntry(id: id, appVersion: "1"))
    }
    return table
  }

  static func generation(_ version: String, stamp: UInt64? = nil) -> Generation {
    Generation(
      sha256: String(repeating: String(version.last ?? "0"), count: 64), size: 2,
      version: version, fetchedAt: now,
      stamp: stamp.map { BlobStamp(inode: $0, size: 2, modified: 1, changed: 1) })
  }

  // MARK: - Plans

  @Test func everyCommandNamingAnUnknownAssetIsRefusedWithItsName() {
    let records = Self.records("flags")
    let commands: [AssetCommand] = [
      .refresh(id: "nope"), .resetToBundled(id: "nope"), .dropCache(id: "nope"),
      .rollback(id: "nope"),
      .verify(id: "nope"), .confirm(id: "nope"), .reject(id: "nope", reason: "x"),
    ]
    for command in commands {
      #expect(throws: CommandError(message: "no asset named nope"), "\(command)") {
        try CommandCore.plan(command, records: records)
      }
    }
  }

  @Test func eachCommandAboutAKnownAssetIsCarriedOutByItsStep() throws {
    let records = Self.records("flags")
    let expected: [(AssetCommand, CommandAction)] = [
      (.refresh(id: "flags"), .refresh("flags")),
      (.refreshAll, .refreshAll),
      (.resetToBundled(id: "flags"), .resetToBundled("flags")),
      (.dropCache(id: "flags"), .dropCache("flags")),
      (.rollback(id: "flags"), .rollback("flags")),
      (.pauseAutoRefresh, .setPaused(true)),
      (.resumeAutoRefresh, .setPaused(false)),
      (.verify(id: "flags"), .verify(["flags"])),
      (.verifyAll, .verify(nil)),
      (.confirm(id: "flags"), .confirm("flags")),
      (.reject(id: "flags", reason: "crashed"), .reject("flags", reason: "crashed")),
    ]
    for (command, action) in expected {
      #expect(try CommandCore.plan(command, records: records) == action, "\(command)")
    }
  }

  @Test func commandsNamingNoAssetRunWithoutAnyAssets() throws {
    let empty = RecordTable()
    #expect(try CommandCore.plan(.refreshAll, records: empty) == .refreshAll)
    #expect(try CommandCore.plan(.verifyAll, records: empty) == .verify(nil))
    #expect(try CommandCore.plan(.pauseAutoRefresh, records: empty) == .setPaused(true))
  }

  @Test func knownThrowsTheUnknownRefusalAndReturnsTheRecordOtherwise() throws {
    let records = Self.records("flags")
    #expect(throws: CommandError(message: "no asset named other")) {
      try CommandCore.known("other", in: records)
    }
    #expect(try CommandCore.known("flags", in: records).definition.id == "flags")
  }

  @Test func onlyARefusalIsLogged() {
    #expect(CommandCore.logged(.refused("no asset named x")) == "no asset named x")
    #expect(CommandCore.logged(CommandReply(ok: true)) == nil)
    let failedRefresh = CommandReply(ok: false, error: "a: timeout", results: [])
    #expect(CommandCore.logged(failedRefresh) == nil, "a failed refresh shows in its asset")
  }

  // MARK: - Replies

  @Test func aRefreshReplyIsOkUnlessOneFailedAndNamesTheFirstFailure() {
    let ok = CommandCore.refreshReply([
      .init(id: "a", outcome: .updated(version: "v2"), version: "v2"),
      .init(id: "b", outcome: .notModified, version: nil),
    ])
    #expect(ok.ok && ok.error == nil)
    #expect(ok.results?.map(\.version) == ["v2", nil])
    let failed = CommandCore.refreshReply([
      .init(id: "a", outcome: .notModified, version: "v1"),
      .init(id: "b", outcome: .failed(FetchError(.network, "timed out")), version: "v1"),
      .init(id: "c", outcome: .failed(FetchError(.network, "refused")), version: nil),
    ])
    #expect(!failed.ok)
    #expect(failed.error == "b: timed out")
    #expect(failed.results?.map(\.error) == [nil, "timed out", "refused"])
    #expect(!failed.isRefusal, "the results come with it")
  }

  @Test func aVerifyReplyIsOkUnlessACopyIsDamaged() {
    let ok = CommandCore.verifyReply([VerifyResult(id: "a", checked: true, problem: nil)])
    #expect(ok.ok && ok.verified?.count == 1)
    let damaged = CommandCore.verifyReply([
      VerifyResult(id: "a", checked: false, problem: nil),
      VerifyResult(id: "b", checked: true, problem: "hash mismatch"),
    ])
    #expect(!damaged.ok)
    #expect(damaged.error == "b: hash mismatch")
  }

  // MARK: - Entry changes

  @Test func aResetKeepsTheCachedCopyAsThePreviousAndClearsTheRest() {
    var entry = CacheEntry(id: "flags", appVersion: "1")
    entry.current = Self.generation("v2")
    entry.previous = Self.generation("v1")
    entry.checkedAt = Self.now
    entry.consecutiveFailures = 3
    entry.lastError = AssetErrorRecord(kind: .network, message: "x", at: Self.now)
    CommandCore.reset(&entry)
    #expect(entry.current == nil && entry.previous == Self.generation("v2"))
    #expect(entry.checkedAt == nil && entry.lastError == nil && entry.consecutiveFailures == 0)
    var bare = CacheEntry(id: "flags", appVersion: "1")
    bare.previous = Self.generation("v1")
    CommandCore.reset(&bare)
    #expect(bare.previous == Self.generation("v1"), "nothing cached: the previous stays")
    #expect(CommandCore.resetMessage(hasBundled: true) == "reset to the bundled copy")
    #expect(
      CommandCore.resetMessage(hasBundled: false) == "reset; no bundled copy, nothing to serve")
  }

  @Test func aDroppedEntryIsEmptyAndCheckedOneIntervalLater() {
    let definition = AssetDefinition(
      id: "flags", remote: URL(string: "https://example.com/f"), refresh: .every(300))
    let entry = CommandCore.dropped(definition, appVersion: "7", at: Self.now)
    #expect(entry.current == nil && entry.previous == nil && entry.appVersion == "7")
    #expect(entry.nextAttemptAt == Self.now.addingTimeInterval(300))
    var manual = definition
    manual.refresh = .manual
    #expect(CommandCore.dropped(manual, appVersion: "7", at: Self.now).nextAttemptAt == nil)
    #expect(CommandCore.dropMessage(hasBundled: false) == "cache dropped; nothing to serve")
  }

  // MARK: - Rollback

  @Test func rollbackGoesBackToWhatTheDiskNamesElseWhatItRemembers() {
    let v1 = Self.generation("v1")
    let v0 = Self.generation("v0")
    var disk = CacheEntry(id: "flags", appVersion: "1")
    disk.previous = v1
    #expect(CommandCore.rollbackTarget(onDisk: .some(disk), remembered: v0) == v1)
    let empty = CacheEntry(id: "flags", appVersion: "1")
    #expect(
      CommandCore.rollbackTarget(onDisk: .some(empty), remembered: v0) == nil,
      "the disk says there is none")
    #expect(
      CommandCore.rollbackTarget(onDisk: .some(nil), remembered: v0) == nil, "no entry on disk")
    #expect(CommandCore.rollbackTarget(onDisk: .none, remembered: v0) == v0, "unreadable")
  }

  @Test func rollbackWithNothingToGoBackToIsRefused() throws {
    #expect(
      throws: CommandError(message: "flags: there is no previous generation to roll back to")
    ) { try CommandCore.rollbackFrom("flags", nil) }
    #expect(try CommandCore.rollbackFrom("flags", Self.generation("v1")) == Self.generation("v1"))
  }

  @Test func rollbackOntoARejectedCopyIsRefusedNamingItsVersionOrHash() {
    let previous = Self.generation("v1")
    let rejected = AssetRejection(
      version: "v1", sha256: previous.sha256, reason: "crashed", at: Self.now)
    #expect(
      throws: CommandError(
        message: "flags: cannot roll back: the previous generation, v1, was rejected")
    ) {
      try CommandCore.rollbackNeedsRecheck(
        "flags", previous: previous, problem: nil, rejection: rejected, readOnly: false)
    }
    var unnamed = rejected
    unnamed.version = nil
    #expect(
      throws: CommandError(
        message: "flags: cannot roll back: the previous generation, 11111111, was rejected")
    ) {
      try CommandCore.rollbackNeedsRecheck(
        "flags", previous: previous, problem: "missing", rejection: unnamed, readOnly: true)
    }
  }

  @Test func rollbackRechecksUnderTheLockUnlessTheCacheIsReadOnly() throws {
    let previous = Self.generation("v1")
    #expect(
      try CommandCore.rollbackNeedsRecheck(
        "flags", previous: previous, problem: "hash mismatch", rejection: nil, readOnly: false),
      "a failed hash is looked at again under the lock")
    #expect(
      try !CommandCore.rollbackNeedsRecheck(
        "flags", previous: previous, problem: nil, rejection: nil, readOnly: true))
    #expect(throws: CommandError(message: "flags: cannot roll back: hash mismatch")) {
      try CommandCore.rollbackNeedsRecheck(
        "flags", previous: previous, problem: "hash mismatch", rejection: nil, readOnly: true)
    }
  }

  @Test func theCheckUnderTheLockDecidesWhetherTheRollbackGoesOn() throws {
    try CommandCore.rollbackRechecked("flags", .intact)
    #expect(throws: CommandCore.changedMeanwhile("flags")) {
      try CommandCore.rollbackRechecked("flags", .changed)
    }
    #expect(throws: CommandError(message: "flags: cannot roll back: blob missing")) {
      try CommandCore.rollbackRechecked("flags", .damaged(problem: "blob missing", file: nil))
    }
    #expect(
      CommandCore.rollbackFailed("flags", CommandError(message: "EIO")).message
        == "flags: roll back failed: EIO")
  }

  @Test func theSwapHappensOnlyOnTheCopyChecked() throws {
    let v1 = Self.generation("v1", stamp: 1)
    let v2 = Self.generation("v2", stamp: 2)
    var entry = CacheEntry(id: "flags", appVersion: "1")
    entry.current = v2
    entry.previous = v1
    entry.consecutiveFailures = 2
    var swapped = entry
    CommandCore.swapBack(&swapped, to: v1)
    #expect(swapped.current == v1 && swapped.previous == v2 && swapped.consecutiveFailures == 0)
    #expect(try CommandCore.rolledBack("flags", to: v1, result: swapped) == "rolled back to v1")
    var replaced = entry
    CommandCore.swapBack(&replaced, to: Self.generation("v1", stamp: 9))
    #expect(replaced == entry, "another process rewrote the blob: same hash, other stamp")
    #expect(throws: CommandCore.changedMeanwhile("flags")) {
      try CommandCore.rolledBack("flags", to: Self.generation("v1", stamp: 9), result: replaced)
    }
    var unnamed = v1
    unnamed.version = nil
    #expect(
      try CommandCore.rolledBack("flags", to: unnamed, result: CacheEntry.with(current: unnamed))
        == "rolled back to 11111111")
  }

  // MARK: - Pause

  @Test func pauseAndResumeChangeTheLifecycleOnceAndOnlyResumeWakesTheScheduler() {
    var lifecycle = EngineLifecycle()
    #expect(lifecycle.setPaused(false, at: Self.now) == nil, "running already")
    #expect(
      lifecycle.setPaused(true, at: Self.now)
        == .init(message: "automatic refresh paused", wakesScheduler: false))
    #expect(lifecycle.pausedAt == Self.now)
    #expect(lifecycle.setPaused(true, at: Self.now.addingTimeInterval(5)) == nil)
    #expect(lifecycle.pausedAt == Self.now, "a second pause keeps the first time")
    #expect(
      lifecycle.setPaused(false, at: Self.now)
        == .init(message: "automatic refresh resumed", wakesScheduler: true))
    #expect(!lifecycle.paused)
  }
}

extension CacheEntry {
  /// An entry of "flags" serving `current`.
  fileprivate static func with(current: Generation) -> CacheEntry {
    var entry = CacheEntry(id: "flags", appVersion: "1")
    entry.current = current
    return entry
  }
}
