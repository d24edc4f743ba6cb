import AssetModel
import ChunkIndex
import Crypto
import Foundation

extension RefreshCore {
  /// Why a delta update does not go on: the engine performs it and downloads the whole file
  /// (or keeps what was assembled for the next attempt).
  enum DeltaStop: Error, Sendable, Equatable {
    /// No delta applies: the whole download runs, nothing said.
    case whole
    /// A kept partial of a delta of another index is no prefix of this version: it goes, and
    /// the whole download starts from the beginning.
    case discardKept
    /// No chunk in common with the cached copy, nothing kept: said, and the whole file comes.
    case nothingInCommon
    /// The delta gave up: the index is not tried again for this file, the sink is emptied, the
    /// reason logged, and the whole file comes.
    case fallBack(String)
    /// As ``fallBack(_:)`` after attempts cut in a row at the same point; the count starts
    /// again.
    case stalled(String)
    /// As ``fallBack(_:)``, and the chunk indexes of the cached copies (sidecars) lied: they
    /// go, so the next delta indexes those copies anew.
    case sidecarsLied(String, copies: [String])
    /// The network failed mid-way (or the task was cancelled): what was assembled is kept for
    /// the next attempt, which continues it.
    case interrupted(FetchError)
  }

  /// What a delta works with, once it applies.
  struct Delta: Sendable, Equatable {
    /// The published chunk index.
    var reference: ChunkIndexReference
    /// The validator a kept partial of this delta is recorded with (``AssetEngine/deltaResumeTag(_:)``).
    var tag: String
    /// The SHA-256 of the cached copies it may reuse chunks of (current first).
    var held: [String]
  }

  /// Delta attempts of one index cut in a row at the same point before the next one downloads
  /// the whole file (see ``AssetRecord/deltaStall``).
  static let deltaStallLimit = 2

  /// Whether a delta applies to `record` under `attempt`: an index reference, a fetcher that
  /// offers ranges, a cached copy (current or previous) that is not the target; a kept partial
  /// (`resumeOffset` bytes, recorded with `resumeTag`) is continued only when it is a delta of
  /// the same index. Throws why not.
  static func deltaStart(
    _ record: AssetRecord?, attempt: Attempt, resumeOffset: Int64, resumeTag: String?
  ) throws(DeltaStop) -> Delta {
    guard attempt.ranges, let reference = attempt.definition.chunkIndex, let record else {
      throw .whole
    }
    let tag = AssetEngine.deltaResumeTag(reference)
    if resumeOffset > 0, resumeTag != tag {
      // A kept delta of another index is no prefix of this version: a whole download must not
      // ask to continue it (its made-up validator means nothing to a server).
      throw resumeTag?.hasPrefix("\"\(AssetEngine.deltaTagPrefix)") == true ? .discardKept : .whole
    }
    let target = attempt.definition.sha256
    let current = record.entry.current?.sha256
    let held = [record.entry.current, record.entry.previous].compactMap { $0?.sha256 }
      .filter { $0 != target }
    guard !held.isEmpty, target != current || target == nil else { throw .whole }
    if let read = record.indexRead, read.index == reference.sha256, let file = read.file,
      file == current, resumeOffset == 0
    {
      throw .whole  // a check: this index describes the copy held
    }
    if let stall = record.deltaStall, stall.tag == tag, stall.count >= deltaStallLimit {
      throw .stalled(
        "\(CountText.of(stall.count, "attempt")) in a row were cut after \(stall.reached) bytes")
    }
    return Delta(reference: reference, tag: tag, held: held)
  }

  /// The index fetched for a delta of `attempt` must describe the target (its size and hash).
  static func checkIndex(_ index: ChunkIndex, attempt: Attempt) throws(DeltaStop) {
    let definition = attempt.definition
    if let size = definition.expectedSize, size != index.fileSize {
      throw .fallBack("the chunk index describes \(index.fileSize) bytes, not \(size)")
    }
    if let target = definition.sha256, target != index.fileSHA256 {
      throw .fallBack("the chunk index describes another file than the target's SHA-256")
    }
  }

  /// Whether the index (already checked) describes the copy held: then nothing is fetched.
  static func describesHeld(_ index: ChunkIndex, current: String?) throws(DeltaStop) {
    if index.fileSHA256 == current { throw .whole }  // a check
  }

  /// The indexes of the cached copies that could be read (`local`), with `unreadable` the
  /// problems of the others: at least one is needed.
  static func checkLocal(_ local: [ChunkIndex], unreadable: [String]) throws(DeltaStop) {
    guard !local.isEmpty else {
      throw .fallBack(
        "the cached copy could not be read (\(unreadable.joined(separator: "; ")))")
    }
  }

  /// A plan that reuses nothing is no delta: a kept partial of it goes, else the whole file is
  /// downloaded as if none applied (said once).
  static func checkPlan(_ plan: DeltaPlan, resumeOffset: Int64) throws(DeltaStop) {
    guard plan.reusedBytes > 0 else {
      throw resumeOffset > 0
        ? .fallBack("no chunk in common with the cached copy") : .nothingInCommon
    }
  }

  /// A delta attempt's stall record: the validator of the delta, how far the furthest cut got,
  /// and how many attempts in a row were cut there.
  typealias Stall = (tag: String, reached: Int64, count: Int)

  /// The delta transfer started at `start` failed with `error` (`cancelled`: the task was): an
  /// interruption keeps what was assembled, and one by the network counts towards a stall
  /// (`last` the record's); anything else falls back.
  static func transferStopped(
    _ error: DeltaFailure, cancelled: Bool, delta: Delta, start: Int64, stall last: Stall?
  ) -> (stop: DeltaStop, stall: Stall?) {
    guard let kind = cancelled ? .cancelled : error.interruption else {
      return (.fallBack(error.reason), last)
    }
    let stop = DeltaStop.interrupted(FetchError(kind, "delta update: \(error.reason)"))
    guard kind != .cancelled else { return (stop, last) }
    return (stop, stall(after: last, tag: delta.tag, reached: error.offset ?? start))
  }

  /// The stall record after a delta attempt of `tag` was cut after `reached` bytes: one more in
  /// a row when it got no further than the last (see ``AssetRecord/deltaStall``).
  static func stall(after last: Stall?, tag: String, reached: Int64) -> Stall {
    if let last, last.tag == tag, reached <= last.reached {
      return (tag, last.reached, last.count + 1)
    }
    return (tag, reached, 1)
  }

  /// The assembled file's SHA-256 against the index's. Every fetched chunk matched the index,
  /// so when the whole differs a copied one did not: a sidecar of a cached copy lies (a damaged
  /// disk), or the published index's chunks are not its file.
  static func checkAssembled(
    _ digest: String, index: ChunkIndex, reusedBytes: Int64, delta: Delta
  ) throws(DeltaStop) {
    guard digest == index.fileSHA256 else {
      let why = "the assembled file's SHA-256 differs from the index's"
      throw reusedBytes > 0 ? .sidecarsLied(why, copies: delta.held) : .fallBack(why)
    }
  }

  /// A delta that assembled the whole file ends as a download with the response's metadata,
  /// if a range brought any.
  static func deltaDone(_ metadata: FetchMetadata?, _ stats: DeltaStats) -> (
    FetchResponse, DeltaStats
  ) {
    (.downloaded(metadata ?? FetchMetadata()), stats)
  }

  /// Preparing the sink for a delta failed with `error`.
  static func announceFailed(_ error: any Error) -> DeltaStop {
    .fallBack((error as? FetchError)?.message ?? "\(error)")
  }

  /// What the engine does when a delta stops: the whole download runs next (the sink emptied
  /// where it held the delta's bytes), or the interruption is raised and what was assembled
  /// kept for the next attempt. `reference` is the index the delta worked with.
  static func deltaStopped(_ stop: DeltaStop, reference: ChunkIndexReference?) -> [RefreshAction] {
    switch stop {
    case .whole:
      return []
    case .discardKept:
      return [.resetSink]
    case .nothingInCommon:
      return [
        .log(.info, "delta update: no chunk in common with the cached copy; downloading whole")
      ]
    case .interrupted(let error):
      return [.raise(error)]  // kept for the next attempt, like a cut download
    case .stalled(let why):
      return [.change(RefreshRecordChange(clearsDeltaStall: true))]
        + deltaFellBack(why, reference: reference)
    case .sidecarsLied(let why, let copies):
      // The sidecars go (the next delta indexes those copies anew).
      return [.dropChunkIndexes(copies)] + deltaFellBack(why, reference: reference)
    case .fallBack(let why):
      return deltaFellBack(why, reference: reference)
    }
  }

  /// A delta gave up: the index it could not use (missing, invalid, lying, or for a server that
  /// ignores Range) is remembered, so it is neither fetched again for that nor kept after the
  /// whole download; the sink is emptied, the fallback counted and its reason logged.
  private static func deltaFellBack(_ why: String, reference: ChunkIndexReference?)
    -> [RefreshAction]
  {
    [
      .change(RefreshRecordChange(unusableIndex: reference?.sha256)), .resetSink,
      .count(.deltaFallback), .log(.warning, "delta update: \(why); downloading the whole file"),
    ]
  }

  /// The published index fetched after a whole download is kept only when it describes the
  /// bytes committed (`current`).
  static func checkPublished(_ index: ChunkIndex, current: String) throws(DeltaFailure) {
    guard index.fileSHA256 == current else {
      throw DeltaFailure("it describes another file than the one committed")
    }
  }

  /// The published index of `attempt`'s asset worth keeping beside the blob just committed
  /// (`current`): not on a read-only cache, and not one a delta found unusable or describing
  /// another file. Throws nothing worth a word: nil means none.
  static func publishedIndex(
    _ record: AssetRecord?, attempt: Attempt, readOnly: Bool
  ) -> (reference: ChunkIndexReference, current: String)? {
    guard let reference = attempt.definition.chunkIndex, !readOnly,
      let current = record?.entry.current?.sha256
    else { return nil }
    // A delta found this index unusable, or it describes another file than the one committed.
    if let read = record?.indexRead, read.index == reference.sha256, read.file != current {
      return nil
    }
    return (reference, current)
  }

  /// The request for a chunk index named by `reference`, for the asset requested with `asset`:
  /// its exact size and SHA-256 bound it; the asset's headers go with it only to the asset's own
  /// origin.
  static func indexRequest(_ reference: ChunkIndexReference, for asset: FetchRequest)
    -> FetchRequest
  {
    var request = FetchRequest(
      url: reference.url,
      headers: HTTPFetcher.sameOrigin(asset.url, reference.url) ? asset.headers : [],
      maxBytes: reference.size, expectedSize: reference.size,
      expectedSHA256: reference.sha256, timeout: asset.timeout,
      allowInsecure: asset.allowInsecure)
    request.tls = asset.tls
    request.proxy = asset.proxy
    return request
  }

  /// A chunk index's bytes, checked against the SHA-256 its reference names, then parsed.
  static func parseIndex(_ bytes: [UInt8], reference: ChunkIndexReference) throws(DeltaFailure)
    -> ChunkIndex
  {
    guard SHA256Text.hex(SHA256.hash(data: bytes)) == reference.sha256 else {
      throw DeltaFailure("the chunk index's SHA-256 differs from the one its target names")
    }
    do {
      return try ChunkIndex(parsing: bytes)
    } catch {
      throw DeltaFailure("the chunk index is invalid: \(error.message)")
    }
  }
}
