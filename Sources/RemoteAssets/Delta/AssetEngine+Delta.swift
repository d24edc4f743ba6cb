import ChunkIndex
import Crypto
import Foundation

/// What a delta update moved: shown in the log, the history and the metrics.
struct DeltaStats: Sendable, Equatable {
  var fetchedBytes: Int64
  var reusedBytes: Int64
  var ranges: Int
  /// The new file's index: every chunk of the assembled file is known to hold its hash, so
  /// after the commit it is kept as the new blob's sidecar (the next delta needs no re-read).
  var index: ChunkIndex
}

extension AssetEngine {
  /// The validator a kept partial of a delta update is recorded with: the index's hash, so the
  /// next attempt continues it only for the same index (a whole download's `If-Range` with it
  /// gets the whole body, as for any changed version).
  static func deltaResumeTag(_ reference: ChunkIndexReference) -> String {
    "\"\(deltaTagPrefix)\(reference.sha256)\""
  }

  static let deltaTagPrefix = "assetwatch-delta-"

  /// Tries to assemble the asset's new version from the chunks its cached copies hold plus
  /// `Range` requests for the rest (``DeltaPlan``, ``DeltaTransfer``).
  ///
  /// Applies only with an index reference, a fetcher that offers ranges
  /// (``AssetFetcher/canFetchRanges(_:)``) and a cached copy (current or
  /// previous) that is not the target; a kept partial is continued only when it is a delta of
  /// the same index (`resumeTag`). Any failure other than the network's (the index missing or
  /// invalid, a server that ignores `Range`, a chunk whose bytes differ from the index, a
  /// whole-file hash that differs) empties the sink, is logged once, and the caller downloads
  /// the whole file as it always did: a delta never fails an update. The decisions are
  /// ``RefreshCore``'s (RefreshCore+Delta.swift).
  ///
  /// - Returns: the response and what moved when the sink holds the whole new file (its
  ///   SHA-256 the index's); nil when no delta applies or it gave up (the sink is empty again,
  ///   or holds a kept partial of a whole download), and the whole download runs.
  /// - Throws: the network's failure mid-way: what was assembled is kept (its record names the
  ///   index, see ``deltaResumeTag(_:)``) and the next attempt continues it.
  func deltaDownload(
    _ id: String, _ transfer: RefreshTransfer, resumeTag: String?
  ) async throws(FetchError) -> (FetchResponse, DeltaStats)? {
    let attempt = transfer.attempt
    let sink = transfer.sink
    do {
      let delta = try RefreshCore.deltaStart(
        core.records[id], attempt: attempt, resumeOffset: sink.resumeOffset, resumeTag: resumeTag)
      return try await deltaSteps(id, transfer, delta)
    } catch {
      // What the core makes of the stop (RefreshCore.deltaStopped): the whole download runs
      // next, or the interruption is raised.
      do {
        _ = try await runRefresh(
          id, RefreshCore.deltaStopped(error, reference: attempt.definition.chunkIndex),
          in: transfer)
      } catch {
        throw RefreshCore.fetchError(error)
      }
      return nil
    }
  }

  /// The steps of a delta that applies; each check that fails throws why (``RefreshCore/DeltaStop``).
  private func deltaSteps(
    _ id: String, _ transfer: RefreshTransfer, _ delta: RefreshCore.Delta
  ) async throws(RefreshCore.DeltaStop) -> (FetchResponse, DeltaStats) {
    let sink = transfer.sink
    let store = self.store
    // 1. The index, whose size and hash whoever named it vouched for.
    let index: ChunkIndex
    do {
      index = try await fetchChunkIndex(delta.reference, for: transfer)
    } catch {
      throw .fallBack(error.reason)
    }
    try RefreshCore.checkIndex(index, attempt: transfer.attempt)
    core.records[id]?.indexRead = (delta.reference.sha256, index.fileSHA256)
    try RefreshCore.describesHeld(index, current: core.records[id]?.entry.current?.sha256)

    // 2. What the cached copies hold, in the same chunking (stored beside each blob). A copy
    // that cannot be read (gone, damaged) is left out; the others still count. Never on the
    // actor (indexing a copy reads all of it): a refresh cancelled before the pool ran this
    // gives the delta up.
    let parameters = index.parameters
    let shas = delta.held
    let read: CachedChunks
    do {
      read = try await IOExecutor.run { CachedChunks(store, shas, parameters) }
    } catch {
      throw .interrupted(FetchError(.cancelled, "delta update: cancelled"))
    }
    defer { read.close() }
    try RefreshCore.checkLocal(read.indexes, unreadable: read.problems)

    // 3. Plan and transfer (continuing a kept partial of the same delta).
    let plan = DeltaPlan(target: index, local: read.indexes)
    try RefreshCore.checkPlan(plan, resumeOffset: sink.resumeOffset)
    let start = sink.resumeOffset
    do {
      try sink.announce(totalBytes: index.fileSize, etag: delta.tag)
    } catch {
      throw RefreshCore.announceFailed(error)
    }
    setActivity(
      id,
      .downloading(
        TransferProgress(receivedBytes: start, expectedBytes: index.fileSize, bytesPerSecond: 0)))
    let run = DeltaTransfer(
      fetcher: transfer.fetcher, request: transfer.request, total: index.fileSize,
      sources: read.descriptors)
    let metadata: FetchMetadata?
    do {
      metadata = try await run.run(plan, into: sink, from: start)
    } catch {
      let stopped = RefreshCore.transferStopped(
        error, cancelled: Task.isCancelled, delta: delta, start: start,
        stall: core.records[id]?.deltaStall)
      core.records[id]?.deltaStall = stopped.stall
      throw stopped.stop
    }
    // The final figures, fetched against reused, from here on the actor: the sink's own last
    // report hops here in a task and can arrive after validation began (then it is dropped),
    // and a delta shorter than the sink's 100 ms reporting interval has no other.
    progressed(
      id,
      TransferProgress(
        receivedBytes: sink.bytesWritten, expectedBytes: index.fileSize, bytesPerSecond: 0,
        reusedBytes: sink.reusedBytes))
    // 4. The whole file, as the index (and the target) names it.
    let digest: String
    do { digest = try sink.digest().sha256 } catch {
      throw .fallBack("the assembled file could not be read back")
    }
    try RefreshCore.checkAssembled(
      digest, index: index, reusedBytes: sink.reusedBytes, delta: delta)
    let stats = DeltaStats(
      fetchedBytes: plan.fetchBytes, reusedBytes: plan.reusedBytes, ranges: plan.fetchCount,
      index: index)
    metrics.delta(id, fetched: stats.fetchedBytes, reused: stats.reusedBytes)
    return RefreshCore.deltaDone(metadata, stats)
  }

  /// After a whole download of an asset that names a chunk index, keeps that index as the new
  /// blob's sidecar when it describes the bytes committed: the next version's delta then needs
  /// no pass over the cached copy to index it (1.2 to 1.4 s per GiB). Best effort: any trouble
  /// only leaves that pass to the next delta, and is logged at debug level.
  func keepPublishedIndex(_ id: String, _ transfer: RefreshTransfer?) async {
    guard let transfer,
      let published = RefreshCore.publishedIndex(
        core.records[id], attempt: transfer.attempt, readOnly: store.isReadOnly)
    else { return }
    let reference = published.reference
    let index: ChunkIndex
    do {
      index = try await fetchChunkIndex(reference, for: transfer)
      try RefreshCore.checkPublished(index, current: published.current)
    } catch {
      logger.debug(
        "chunk index not kept", metadata: ["asset": "\(id)", "reason": "\(error.reason)"])
      return
    }
    core.records[id]?.indexRead = (reference.sha256, index.fileSHA256)
    let store = self.store
    await Self.offActor { store.storeChunkIndex(index) }
  }

  /// Fetches and parses a chunk index: its exact size and SHA-256 are checked before it is
  /// parsed; the asset's headers go with it only to the asset's own origin.
  private func fetchChunkIndex(
    _ reference: ChunkIndexReference, for transfer: RefreshTransfer
  ) async throws(DeltaFailure) -> ChunkIndex {
    guard let scratch = store.tmpFolder else {
      throw DeltaFailure("the cache has no tmp folder")
    }
    let bytes: [UInt8]
    do {
      bytes = try await transfer.fetcher.fetchBytes(
        RefreshCore.indexRequest(reference, for: transfer.request), scratch: scratch)
    } catch {
      throw DeltaFailure("the chunk index could not be fetched: \(error.message)")
    }
    return try RefreshCore.parseIndex(bytes, reference: reference)
  }
}
