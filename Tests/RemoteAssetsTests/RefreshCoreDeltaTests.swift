import ChunkIndex
import Foundation
import Testing

@testable import RemoteAssets

/// Which delta ``RefreshCore`` chooses and when it falls back to a whole download: no ranges or
/// no copy to reuse, a kept partial of another index, a stall, an index that describes another
/// file, nothing in common, a cut transfer, an assembled file that lies. Events in, decisions
/// out.
@Suite struct RefreshCoreDeltaTests {
  typealias F = RefreshCoreFixture
  static let reference = ChunkIndexReference(
    url: URL(string: "https://cdn.example.com/flags.json.chunks")!, size: 300,
    sha256: String(repeating: "c", count: 64))

  static func deltaRecord(target: String? = F.newSHA) -> AssetRecord {
    var record = F.record(current: F.generation(), sha256: target)
    record.definition.chunkIndex = reference
    return record
  }

  static func start(
    _ record: AssetRecord, ranges: Bool = true, offset: Int64 = 0, tag: String? = nil
  ) -> Result<RefreshCore.Delta, RefreshCore.DeltaStop> {
    Result {
      () throws(RefreshCore.DeltaStop) in
      try RefreshCore.deltaStart(
        record, attempt: F.attempt(record, ranges: ranges), resumeOffset: offset, resumeTag: tag)
    }
  }

  @Test func aDeltaAppliesWithAnIndexRangesAndACopyToReuse() {
    let record = Self.deltaRecord()
    let tag = AssetEngine.deltaResumeTag(Self.reference)
    #expect(
      Self.start(record) == .success(.init(reference: Self.reference, tag: tag, held: [F.oldSHA])))
    // The same delta's kept partial is continued.
    #expect(
      Self.start(record, offset: 100, tag: tag)
        == .success(.init(reference: Self.reference, tag: tag, held: [F.oldSHA])))
  }

  @Test func noRangesNoIndexOrNothingToReuseDownloadsTheWholeFile() {
    #expect(Self.start(Self.deltaRecord(), ranges: false) == .failure(.whole))
    #expect(Self.start(F.record(current: F.generation(), sha256: F.newSHA)) == .failure(.whole))
    // The target is the copy held: a check, not a delta.
    #expect(Self.start(Self.deltaRecord(target: F.oldSHA)) == .failure(.whole))
    var bare = Self.deltaRecord()
    bare.entry.current = nil
    #expect(Self.start(bare) == .failure(.whole))
  }

  @Test func aKeptPartialOfAnotherDeltaIsDiscardedOneOfAWholeDownloadContinues() {
    let other = "\"\(AssetEngine.deltaTagPrefix)\(String(repeating: "d", count: 64))\""
    #expect(Self.start(Self.deltaRecord(), offset: 100, tag: other) == .failure(.discardKept))
    #expect(Self.start(Self.deltaRecord(), offset: 100, tag: "\"etag\"") == .failure(.whole))
  }

  @Test func attemptsCutInARowAtOnePointFallBackToTheWholeFile() {
    var record = Self.deltaRecord()
    let tag = AssetEngine.deltaResumeTag(Self.reference)
    record.deltaStall = (tag, 4096, RefreshCore.deltaStallLimit)
    #expect(
      Self.start(record) == .failure(.stalled("2 attempts in a row were cut after 4096 bytes")))
    record.deltaStall = (tag, 4096, 1)
    #expect((try? Self.start(record).get()) != nil)
  }

  @Test func anIndexThatDescribesAnotherFileFallsBack() throws {
    let index = try DeltaPlanTests.index([(20000, "a"), (30000, "b")])
    var record = Self.deltaRecord(target: index.fileSHA256)
    #expect(throws: Never.self) {
      try RefreshCore.checkIndex(index, attempt: F.attempt(record))
    }
    record.definition.sha256 = F.newSHA
    #expect(
      throws: RefreshCore.DeltaStop.fallBack(
        "the chunk index describes another file than the target's SHA-256")
    ) {
      try RefreshCore.checkIndex(index, attempt: F.attempt(record))
    }
    record.definition.expectedSize = 7
    #expect(throws: RefreshCore.DeltaStop.fallBack("the chunk index describes 50000 bytes, not 7"))
    {
      try RefreshCore.checkIndex(index, attempt: F.attempt(record))
    }
    #expect(throws: RefreshCore.DeltaStop.whole) {
      try RefreshCore.describesHeld(index, current: index.fileSHA256)
    }
  }

  @Test func nothingInCommonIsSaidOnceOrFallsBackWithAKeptPartial() throws {
    let old = try DeltaPlanTests.index([(20000, "a")])
    let new = try DeltaPlanTests.index([(20000, "z")])
    let plan = DeltaPlan(target: new, local: [old])
    #expect(throws: RefreshCore.DeltaStop.nothingInCommon) {
      try RefreshCore.checkPlan(plan, resumeOffset: 0)
    }
    #expect(throws: RefreshCore.DeltaStop.fallBack("no chunk in common with the cached copy")) {
      try RefreshCore.checkPlan(plan, resumeOffset: 10)
    }
    #expect(throws: RefreshCore.DeltaStop.fallBack("the cached copy could not be read (gone)")) {
      try RefreshCore.checkLocal([], unreadable: ["gone"])
    }
  }

  @Test func aCutTransferIsKeptAndCountsTowardsAStall() {
    let delta = RefreshCore.Delta(reference: Self.reference, tag: "t", held: [F.oldSHA])
    let cut = DeltaFailure("reset", interruption: .reset, offset: 1000)
    let first = RefreshCore.transferStopped(
      cut, cancelled: false, delta: delta, start: 0, stall: nil)
    #expect(first.stop == .interrupted(FetchError(.reset, "delta update: reset")))
    #expect(first.stall?.count == 1 && first.stall?.reached == 1000)
    let second = RefreshCore.transferStopped(
      cut, cancelled: false, delta: delta, start: 0, stall: first.stall)
    #expect(second.stall?.count == 2)
    // Further than the last cut: the count starts again.
    let further = DeltaFailure("reset", interruption: .reset, offset: 5000)
    #expect(
      RefreshCore.transferStopped(
        further, cancelled: false, delta: delta, start: 0, stall: second.stall
      )
      .stall?.count == 1)
    // Cancelled: kept, not counted. Not an interruption: a fallback.
    let cancelled = RefreshCore.transferStopped(
      cut, cancelled: true, delta: delta, start: 0, stall: nil)
    #expect(cancelled.stop == .interrupted(FetchError(.cancelled, "delta update: reset")))
    #expect(cancelled.stall == nil)
    let lying = DeltaFailure("the server ignores Range")
    #expect(
      RefreshCore.transferStopped(lying, cancelled: false, delta: delta, start: 0, stall: nil).stop
        == .fallBack("the server ignores Range"))
  }

  @Test func anAssembledFileThatDiffersDropsTheSidecarsThatLied() throws {
    let index = try DeltaPlanTests.index([(20000, "a")])
    let delta = RefreshCore.Delta(reference: Self.reference, tag: "t", held: [F.oldSHA])
    let why = "the assembled file's SHA-256 differs from the index's"
    #expect(throws: RefreshCore.DeltaStop.sidecarsLied(why, copies: [F.oldSHA])) {
      try RefreshCore.checkAssembled(F.newSHA, index: index, reusedBytes: 10, delta: delta)
    }
    #expect(throws: RefreshCore.DeltaStop.fallBack(why)) {
      try RefreshCore.checkAssembled(F.newSHA, index: index, reusedBytes: 0, delta: delta)
    }
    #expect(throws: Never.self) {
      try RefreshCore.checkAssembled(index.fileSHA256, index: index, reusedBytes: 10, delta: delta)
    }
  }

  @Test func aPublishedIndexIsKeptOnlyForTheBytesCommitted() {
    var record = Self.deltaRecord()
    let attempt = F.attempt(record)
    #expect(
      RefreshCore.publishedIndex(record, attempt: attempt, readOnly: false)?.current == F.oldSHA)
    #expect(RefreshCore.publishedIndex(record, attempt: attempt, readOnly: true) == nil)
    record.indexRead = (Self.reference.sha256, nil)  // a delta found it unusable
    #expect(RefreshCore.publishedIndex(record, attempt: attempt, readOnly: false) == nil)
  }

  @Test func aStoppedDeltaLeavesTheWholeDownloadOrRaisesTheInterruption() {
    let giveUp: [RefreshAction] = [
      .change(RefreshRecordChange(unusableIndex: Self.reference.sha256)), .resetSink,
      .count(.deltaFallback), .log(.warning, "delta update: lied; downloading the whole file"),
    ]
    func stopped(_ stop: RefreshCore.DeltaStop) -> [RefreshAction] {
      RefreshCore.deltaStopped(stop, reference: Self.reference)
    }
    #expect(stopped(.whole) == [])
    #expect(stopped(.discardKept) == [.resetSink])
    #expect(
      stopped(.nothingInCommon) == [
        .log(.info, "delta update: no chunk in common with the cached copy; downloading whole")
      ])
    let cut = FetchError(.network, "connection reset")
    #expect(stopped(.interrupted(cut)) == [.raise(cut)])
    #expect(stopped(.fallBack("lied")) == giveUp)
    #expect(
      stopped(.stalled("lied")) == [.change(RefreshRecordChange(clearsDeltaStall: true))] + giveUp)
    #expect(
      stopped(.sidecarsLied("lied", copies: [F.oldSHA])) == [.dropChunkIndexes([F.oldSHA])] + giveUp
    )
  }

  @Test func aGivenUpIndexAndAClearedStallAreAppliedToTheRecord() {
    var record: AssetRecord? = Self.deltaRecord()
    record?.deltaStall = (tag: "t", reached: 4096, count: 2)
    RefreshRecordChange(unusableIndex: Self.reference.sha256, clearsDeltaStall: true)
      .apply(to: &record)
    #expect(record?.indexRead?.index == Self.reference.sha256)
    #expect(record?.indexRead?.file == nil)
    #expect(record?.deltaStall == nil)
    // Without the change's fields, neither moves.
    record?.deltaStall = (tag: "t", reached: 4096, count: 1)
    RefreshRecordChange().apply(to: &record)
    #expect(record?.deltaStall?.count == 1)
    #expect(record?.indexRead?.index == Self.reference.sha256)
  }

  @Test func anIndexWhoseBytesDifferFromItsReferenceIsRefused() {
    #expect(throws: DeltaFailure("the chunk index's SHA-256 differs from the one its target names"))
    {
      try RefreshCore.parseIndex(Array("x".utf8), reference: Self.reference)
    }
  }
}
