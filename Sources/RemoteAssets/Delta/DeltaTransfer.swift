import ChunkIndex
import Crypto
import Foundation
import NIOCore

/// Why a delta update stopped. An interruption (the network, a timeout, a cut body, or the task
/// cancelled at shutdown) keeps what was assembled for the next attempt to continue; anything
/// else makes the engine download the whole file once, and say why.
package struct DeltaFailure: Error, Sendable, Equatable, CustomStringConvertible {
  /// One sentence, safe for a terminal.
  package var reason: String
  /// The interruption's kind (a transport kind, or `.cancelled`), when that is what stopped it.
  package var interruption: AssetErrorKind?
  /// Where in the new file the step that stopped begins (for an interruption: how far the
  /// attempt got, the same however the writes behind it were timed).
  package var offset: Int64?
  package init(_ reason: String, interruption: AssetErrorKind? = nil, offset: Int64? = nil) {
    self.reason = TerminalText.sanitize(reason, maxLength: 300)
    self.interruption = interruption
    self.offset = offset
  }
  package var description: String { reason }
}

/// Runs a ``DeltaPlan`` into a ``DownloadSink``: copies reused chunks from the cached copies and
/// fetches the missing ranges (up to ``maxInFlight`` at once, each checked chunk by chunk against
/// the index's hashes before a byte of it is written), front to back, so the sink hashes the
/// whole new file as it is written, as for a whole download.
struct DeltaTransfer: Sendable {
  /// Where the ranges come from (URL, headers, TLS, proxy, timeout of the asset's request).
  let fetcher: any AssetFetcher
  let request: FetchRequest
  /// The new file's size, which every `Content-Range` must name.
  let total: Int64
  /// Open descriptors of the cached copies, by the plan's source numbers (the caller closes
  /// them).
  let sources: [Int32]
  /// Range requests in flight at once.
  var maxInFlight = 4
  /// How much of a cached copy one step of the blocking pool copies (progress and a cancel
  /// are seen between steps).
  static let copyBlock: Int64 = 8 << 20

  private typealias Fetched = (buffers: [ByteBuffer], metadata: FetchMetadata)

  /// Writes the plan's file into `sink`, from `start` on (the bytes before it are in the sink
  /// already: a kept partial being continued).
  ///
  /// - Returns: the validators of the ranges' responses (the new version's ETag and
  ///   Last-Modified), nil when nothing was fetched.
  /// - Throws: ``DeltaFailure`` naming what went wrong (the server ignores `Range`, a chunk's
  ///   bytes do not match the index, a transfer or disk failure).
  func run(_ plan: DeltaPlan, into sink: DownloadSink, from start: Int64 = 0)
    async throws(DeltaFailure) -> FetchMetadata?
  {
    // Where each step begins in the new file; steps that end before `start` are done.
    var begins: [Int64] = []
    var position: Int64 = 0
    for step in plan.steps {
      begins.append(position)
      position += step.length
    }
    let fetchSteps = plan.steps.indices.filter {
      if case .fetch = plan.steps[$0], begins[$0] + plan.steps[$0].length > start {
        true
      } else {
        false
      }
    }
    var started: [Int: Task<Fetched, any Error>] = [:]
    var nextToStart = 0
    defer { for task in started.values { task.cancel() } }
    var metadata: FetchMetadata?
    var reached = start
    do {
      for (position, step) in plan.steps.enumerated()
      where begins[position] + step.length > start {
        reached = max(start, begins[position])
        try Task.checkCancellation()
        // The first step may straddle `start`: its bytes before it are not written again.
        let skip = max(0, start - begins[position])
        // Keep up to `maxInFlight` of the next ranges coming while this step runs.
        while nextToStart < fetchSteps.count, started.count < maxInFlight {
          let index = fetchSteps[nextToStart]
          guard case .fetch(let range, let chunks) = plan.steps[index] else { break }
          started[index] = Task { try await fetch(range, chunks: chunks) }
          nextToStart += 1
        }
        switch step {
        case .copy(let source, let offset, let length):
          try await copy(
            from: sources[source], offset: offset + skip, length: length - skip, into: sink)
        case .fetch:
          guard let task = started.removeValue(forKey: position) else {
            throw DeltaFailure("a range was not started")
          }
          // The ranges are unstructured tasks: a cancel of the refresh reaches them here.
          let fetched = try await withTaskCancellationHandler {
            try await task.value
          } onCancel: {
            task.cancel()
          }
          if metadata == nil { metadata = fetched.metadata }
          var left = Int(skip)
          for var buffer in fetched.buffers {
            if left > 0 {
              let dropped = min(left, buffer.readableBytes)
              buffer.moveReaderIndex(forwardBy: dropped)
              left -= dropped
              if buffer.readableBytes == 0 { continue }
            }
            try await sink.writeBehind(buffer)
          }
        }
      }
      try await sink.finishWriting()
    } catch var failure as DeltaFailure {
      failure.offset = failure.offset ?? reached
      throw failure
    } catch let error as FetchError {
      let interrupted = error.kind.isTransport || error.kind == .cancelled || Task.isCancelled
      throw DeltaFailure(
        error.message,
        interruption: interrupted ? (Task.isCancelled ? .cancelled : error.kind) : nil,
        offset: reached)
    } catch is CancellationError {
      throw DeltaFailure("cancelled", interruption: .cancelled, offset: reached)
    } catch {
      throw DeltaFailure("\(error)", offset: reached)
    }
    sink.flushProgress()
    return metadata
  }

  /// Fetches one range and checks every chunk in it against its hash.
  private func fetch(_ range: Range<Int64>, chunks: [ChunkRecord]) async throws -> Fetched {
    switch try await fetcher.fetchRange(request, range: range, total: total) {
    case .ignored(let status):
      throw DeltaFailure("the server ignores Range requests (HTTP \(status) to a range)")
    case .partial(let buffers, let metadata):
      try Self.check(buffers, chunks: chunks)
      return (buffers, metadata)
    }
  }

  /// Checks that `buffers` (a range's bytes) hold `chunks` with the index's hashes.
  ///
  /// - Throws: ``DeltaFailure`` naming the first chunk whose bytes differ.
  static func check(_ buffers: [ByteBuffer], chunks: [ChunkRecord]) throws(DeltaFailure) {
    var chunkIndex = 0
    var left = chunks.first.map { $0.length } ?? 0
    var hasher = SHA256()
    for buffer in buffers {
      var view = buffer.readableBytesView[...]
      while !view.isEmpty {
        guard chunkIndex < chunks.count else {
          throw DeltaFailure("a range brought more bytes than its chunks")
        }
        let take = min(left, view.count)
        let slice = view.prefix(take)
        slice.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        view = view.dropFirst(take)
        left -= take
        if left == 0 {
          let chunk = chunks[chunkIndex]
          if ChunkHash(hasher.finalize()) != chunk.hash {
            throw DeltaFailure(
              "the chunk at offset \(chunk.offset) does not match the index's hash (the index does not describe the file served)"
            )
          }
          hasher = SHA256()
          chunkIndex += 1
          left = chunkIndex < chunks.count ? chunks[chunkIndex].length : 0
        }
      }
    }
    guard chunkIndex == chunks.count else {
      throw DeltaFailure("a range ended inside a chunk")
    }
  }

  /// Copies `length` bytes at `offset` of a cached copy into the sink, a block at a time on
  /// the blocking pool (the kernel copies them; see ``PartialFile/append(copying:from:at:)``),
  /// after the fetched bytes queued before them are written.
  private func copy(
    from fd: Int32, offset: Int64, length: Int64, into sink: DownloadSink
  ) async throws {
    try await sink.finishWriting()
    var done: Int64 = 0
    while done < length {
      try Task.checkCancellation()
      let want = min(Self.copyBlock, length - done)
      let at = offset + done
      try await IOExecutor.run { try sink.appendCopy(of: want, from: fd, at: at) }
      done += want
    }
  }
}
