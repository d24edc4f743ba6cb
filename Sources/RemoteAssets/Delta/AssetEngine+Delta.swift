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

/// How a delta attempt ended.
enum DeltaResult: Sendable {
  /// The sink holds the whole new file, its SHA-256 the index's.
  case done(FetchMetadata, DeltaStats)
  /// No delta applies, or it gave up and said why: the sink is empty again (or holds a kept
  /// partial of a whole download), and the whole download runs.
  case wholeDownload
  /// The network failed mid-way: what was assembled is kept (its record names the index, see
  /// ``AssetEngine/deltaResumeTag(_:)``) and the next attempt continues it.
  case interrupted(FetchError)
}

extension AssetEngine {
  /// The validator a kept partial of a delta update is recorded with: the index's hash, so the
  /// next attempt continues it only for the same index (a whole download's `If-Range` with it
  /// gets the whole body, as for any changed version).
  static func deltaResumeTag(_ reference: ChunkIndexReference) -> String {
    "\"\(deltaTagPrefix)\(reference.sha256)\""
  }

  private static let deltaTagPrefix = "assetwatch-delta-"

  /// Delta attempts of one index cut in a row at the same point before the next one downloads
  /// the whole file (see ``AssetRecord/deltaStall``).
  static let deltaStallLimit = 2

  /// Tries to assemble the asset's new version from the chunks its cached copies hold plus
  /// `Range` requests for the rest (``DeltaPlan``, ``DeltaTransfer``).
  ///
  /// Applies only with an index reference, a fetcher that offers ranges
  /// (``AssetFetcher/canFetchRanges(_:)``) and a cached copy (current or
  /// previous) that is not the target; a kept partial is continued only when it is a delta of
  /// the same index (`resumeTag`). Any failure other than the network's (the index missing or
  /// invalid, a server that ignores `Range`, a chunk whose bytes differ from the index, a
  /// whole-file hash that differs) empties the sink, is logged once, and the caller downloads
  /// the whole file as it always did: a delta never fails an update.
  func deltaDownload(
    _ id: String, definition: AssetDefinition, fetcher: any AssetFetcher, request: FetchRequest,
    sink: DownloadSink, resumeTag: String?
  ) async -> DeltaResult {
    guard let reference = definition.chunkIndex, let record = records[id] else {
      return .wholeDownload
    }
    let tag = Self.deltaResumeTag(reference)
    if sink.resumeOffset > 0, resumeTag != tag {
      // A kept delta of another index is no prefix of this version: a whole download must not
      // ask to continue it (its made-up validator means nothing to a server).
      if resumeTag?.hasPrefix("\"\(Self.deltaTagPrefix)") == true { try? sink.reset() }
      return .wholeDownload
    }
    let target = definition.sha256
    let held = [record.entry.current, record.entry.previous].compactMap { $0 }
      .filter { $0.sha256 != target }
    guard !held.isEmpty, target != record.entry.current?.sha256 || target == nil else {
      return .wholeDownload
    }
    if let read = record.indexRead, read.index == reference.sha256, let file = read.file,
      file == record.entry.current?.sha256, sink.resumeOffset == 0
    {
      return .wholeDownload  // a check: this index describes the copy held
    }
    let store = self.store
    func fallBack(_ why: String) async -> DeltaResult {
      // Not kept after the whole download either: an index a delta could not use (missing,
      // invalid, lying, or for a server that ignores Range) is not fetched again for that.
      records[id]?.indexRead = (reference.sha256, nil)
      do { try sink.reset() } catch {}
      metrics.deltaFallback(id)
      log(id, .warning, "delta update: \(why); downloading the whole file")
      return .wholeDownload
    }

    if let stall = record.deltaStall, stall.tag == tag, stall.count >= Self.deltaStallLimit {
      records[id]?.deltaStall = nil
      return await fallBack(
        "\(CountText.of(stall.count, "attempt")) in a row were cut after \(stall.reached) bytes")
    }

    // 1. The index, whose size and hash whoever named it vouched for.
    let index: ChunkIndex
    do {
      index = try await fetchChunkIndex(reference, for: request, fetcher: fetcher)
    } catch {
      return await fallBack(error.reason)
    }
    if let size = definition.expectedSize, size != index.fileSize {
      return await fallBack("the chunk index describes \(index.fileSize) bytes, not \(size)")
    }
    if let target, target != index.fileSHA256 {
      return await fallBack("the chunk index describes another file than the target's SHA-256")
    }
    records[id]?.indexRead = (reference.sha256, index.fileSHA256)
    if index.fileSHA256 == record.entry.current?.sha256 { return .wholeDownload }  // a check

    // 2. What the cached copies hold, in the same chunking (stored beside each blob). A copy
    // that cannot be read (gone, damaged) is left out; the others still count.
    let parameters = index.parameters
    let shas = held.map(\.sha256)
    // Never on the actor (indexing a copy reads all of it): a refresh cancelled before the
    // pool ran this gives the delta up.
    let read: ([ChunkIndex], [Int32], [String])
    do {
      read = try await IOExecutor.run {
        var indexes: [ChunkIndex] = []
        var fds: [Int32] = []
        var problems: [String] = []
        for sha in shas {
          do {
            let index = try store.chunkIndex(ofBlob: sha, parameters: parameters)
            fds.append(try store.openBlob(sha))
            indexes.append(index)
          } catch {
            problems.append("\(error)")
          }
        }
        return (indexes, fds, problems)
      }
    } catch {
      return .interrupted(FetchError(.cancelled, "delta update: cancelled"))
    }
    let (local, descriptors, unreadable) = read
    defer { for fd in descriptors { close(fd) } }
    guard !local.isEmpty else {
      return await fallBack(
        "the cached copy could not be read (\(unreadable.joined(separator: "; ")))")
    }

    // 3. Plan and transfer (continuing a kept partial of the same delta).
    let plan = DeltaPlan(target: index, local: local)
    guard plan.reusedBytes > 0 else {
      if sink.resumeOffset > 0 { return await fallBack("no chunk in common with the cached copy") }
      log(id, .info, "delta update: no chunk in common with the cached copy; downloading whole")
      return .wholeDownload
    }
    let start = sink.resumeOffset
    do {
      try sink.announce(totalBytes: index.fileSize, etag: tag)
    } catch {
      return await fallBack((error as? FetchError)?.message ?? "\(error)")
    }
    setActivity(
      id,
      .downloading(
        TransferProgress(receivedBytes: start, expectedBytes: index.fileSize, bytesPerSecond: 0)))
    let transfer = DeltaTransfer(
      fetcher: fetcher, request: request, total: index.fileSize, sources: descriptors)
    let metadata: FetchMetadata?
    do {
      metadata = try await transfer.run(plan, into: sink, from: start)
    } catch {
      if let kind = Task.isCancelled ? .cancelled : error.interruption {
        if kind != .cancelled { countStall(id, tag: tag, reached: error.offset ?? start) }
        return .interrupted(FetchError(kind, "delta update: \(error.reason)"))
      }
      return await fallBack(error.reason)
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
      return await fallBack("the assembled file could not be read back")
    }
    guard digest == index.fileSHA256 else {
      // Every fetched chunk matched the index, so a copied one did not: a sidecar of a cached
      // copy lies (a damaged disk), or the published index's chunks are not its file. The
      // sidecars go (the next delta indexes those copies anew) and this index is not tried again.
      if sink.reusedBytes > 0 {
        let store = self.store
        await Self.offActor { for sha in shas { store.removeChunkIndex(ofBlob: sha) } }
      }
      return await fallBack("the assembled file's SHA-256 differs from the index's")
    }
    let stats = DeltaStats(
      fetchedBytes: plan.fetchBytes, reusedBytes: plan.reusedBytes, ranges: plan.fetchCount,
      index: index)
    metrics.delta(id, fetched: stats.fetchedBytes, reused: stats.reusedBytes)
    return .done(metadata ?? FetchMetadata(), stats)
  }

  /// Counts a delta attempt of `tag` cut after `reached` bytes: one more in a row when it got no
  /// further than the last (see ``AssetRecord/deltaStall``).
  private func countStall(_ id: String, tag: String, reached: Int64) {
    if let last = records[id]?.deltaStall, last.tag == tag, reached <= last.reached {
      records[id]?.deltaStall = (tag, last.reached, last.count + 1)
    } else {
      records[id]?.deltaStall = (tag, reached, 1)
    }
  }

  /// After a whole download of an asset that names a chunk index, keeps that index as the new
  /// blob's sidecar when it describes the bytes committed: the next version's delta then needs
  /// no pass over the cached copy to index it (1.2 to 1.4 s per GiB). Best effort: any trouble
  /// only leaves that pass to the next delta, and is logged at debug level.
  func keepPublishedIndex(
    _ id: String, definition: AssetDefinition, fetcher: any AssetFetcher, request: FetchRequest
  ) async {
    guard let reference = definition.chunkIndex, !store.isReadOnly,
      let current = records[id]?.entry.current?.sha256
    else { return }
    // A delta found this index unusable, or it describes another file than the one committed.
    if let read = records[id]?.indexRead, read.index == reference.sha256, read.file != current {
      return
    }
    let index: ChunkIndex
    do {
      index = try await fetchChunkIndex(reference, for: request, fetcher: fetcher)
    } catch {
      logger.debug(
        "chunk index not kept", metadata: ["asset": "\(id)", "reason": "\(error.reason)"])
      return
    }
    guard index.fileSHA256 == current else {
      logger.debug(
        "chunk index not kept",
        metadata: ["asset": "\(id)", "reason": "it describes another file than the one committed"])
      return
    }
    records[id]?.indexRead = (reference.sha256, index.fileSHA256)
    let store = self.store
    await Self.offActor { store.storeChunkIndex(index) }
  }

  /// Fetches and parses a chunk index: its exact size and SHA-256 are checked before it is
  /// parsed; the asset's headers go with it only to the asset's own origin.
  private func fetchChunkIndex(
    _ reference: ChunkIndexReference, for asset: FetchRequest, fetcher: any AssetFetcher
  ) async throws(DeltaFailure) -> ChunkIndex {
    guard let scratch = store.tmpFolder else {
      throw DeltaFailure("the cache has no tmp folder")
    }
    var request = FetchRequest(
      url: reference.url,
      headers: HTTPFetcher.sameOrigin(asset.url, reference.url) ? asset.headers : [],
      maxBytes: reference.size, expectedSize: reference.size,
      expectedSHA256: reference.sha256, timeout: asset.timeout,
      allowInsecure: asset.allowInsecure)
    request.tls = asset.tls
    request.proxy = asset.proxy
    let bytes: [UInt8]
    do {
      bytes = try await fetcher.fetchBytes(request, scratch: scratch)
    } catch {
      throw DeltaFailure("the chunk index could not be fetched: \(error.message)")
    }
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
