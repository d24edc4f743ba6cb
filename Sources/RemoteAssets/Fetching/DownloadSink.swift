import Dispatch
import Foundation
import NIOCore
import Synchronization

/// Where a fetcher writes a body: a partial file in the cache's `tmp/`, hashed as it is written,
/// with `maxBytes` and the expected size enforced chunk by chunk, and progress reported.
///
/// Thread-safe (the watchdog reads it while the transfer writes).
public final class DownloadSink: Sendable {
  struct State {
    var partial: PartialFile
    var expectedTotal: Int64?
    var lastProgressAt: ContinuousClock.Instant
    var windowStartBytes: Int64 = 0
    var windowStart: ContinuousClock.Instant
    var rateSamples: [(ContinuousClock.Instant, Int64)] = []
    /// The validator of the response being written, for a later `If-Range`.
    var responseETag: String?
    /// Whether a response head arrived (the stall watchdog times bodies, not heads).
    var bodyStarted = false
    /// Bytes and time of the last resume checkpoint.
    var checkpointBytes: Int64 = 0
    var checkpointAt: ContinuousClock.Instant
    /// Whether a resume record vouches for a prefix of the partial now.
    var journaled = false
    /// Whether a checkpoint is being completed on the checkpoint queue.
    var checkpointRunning = false
    /// Bytes copied from a cached copy rather than received (a delta update).
    var reusedBytes: Int64 = 0
  }

  // `PartialFile` is not Sendable; the Mutex is the only way to reach it, so access is serialized.
  private let state: Mutex<State>
  private let maxBytes: Int64
  private let expectedSize: Int64?
  private let onProgress: @Sendable (TransferProgress) -> Void
  /// Told once the response is in (``transferEnded()``).
  private let onTransferEnd: (@Sendable () -> Void)?
  /// Keeps the download resumable across a crash (nil: not resumable, e.g. the manifest).
  let journal: ResumeJournal?
  /// The writer thread behind ``writeBehind(_:)``.
  private let writer = WriteBehind()
  /// Where a checkpoint waits for the disk, so the writer goes on meanwhile.
  private let checkpoints = LazyQueue(label: "RemoteAssets.checkpoint", qos: .utility)

  /// Whether the writer's and the checkpoints' queues were ever needed (tests: a small body or
  /// a 304 needs neither).
  var madeQueues: (writer: Bool, checkpoints: Bool) { (writer.madeQueue, checkpoints.wasMade) }

  /// Waits for queued writes and a running checkpoint: what follows touches the file itself.
  private func settle() {
    writer.drainBlocking()
    checkpoints.drain()
  }

  /// The partial file's path (for messages and format checks).
  var path: String { state.withLock { $0.partial.path } }

  /// Bytes already in the partial when the sink was made (a resumed download), else 0.
  public let resumeOffset: Int64

  /// Creates a sink writing into `partial` (a new file, or a kept one reopened after its
  /// durable prefix for a resume).
  init(
    partial: PartialFile, maxBytes: Int64, expectedSize: Int64?, journal: ResumeJournal? = nil,
    onProgress: @escaping @Sendable (TransferProgress) -> Void,
    onTransferEnd: (@Sendable () -> Void)? = nil
  ) {
    let now = ContinuousClock.now
    let offset = partial.bytesWritten
    self.resumeOffset = offset
    self.journal = journal
    var initial = State(
      partial: partial, expectedTotal: expectedSize, lastProgressAt: now, windowStart: now,
      checkpointAt: now)
    initial.windowStartBytes = offset
    initial.checkpointBytes = offset
    initial.journaled = offset > 0
    self.state = Mutex(initial)
    self.maxBytes = maxBytes
    self.expectedSize = expectedSize
    self.onProgress = onProgress
    self.onTransferEnd = onTransferEnd
  }

  /// The fetcher has the whole response (a 304's head, a body's last byte): the engine gives
  /// the transfer's slot to the next refresh from here, where the response ended, rather than
  /// once the fetch has returned through its task and the engine's actor. Called at most once
  /// per fetch by ``HTTPFetcher``; the engine gives the slot back again, to no effect, when the
  /// fetch returns or fails.
  func transferEnded() { onTransferEnd?() }

  /// Bytes written so far.
  public var bytesWritten: Int64 { state.withLock { $0.partial.bytesWritten } }

  /// Tells the sink the total the server announced (Content-Length).
  ///
  /// - Throws: ``FetchError`` `.tooLarge` or `.sizeMismatch` at once when the total cannot be accepted.
  public func announce(totalBytes: Int64?, etag: String? = nil) throws {
    state.withLock { s in
      s.responseETag = etag
      if !s.bodyStarted {
        s.bodyStarted = true
        s.windowStart = ContinuousClock.now
        s.windowStartBytes = s.partial.bytesWritten
      }
    }
    guard let totalBytes else { return }
    if totalBytes > maxBytes {
      throw FetchError(
        .tooLarge, "the server announced \(totalBytes) bytes, more than maxBytes (\(maxBytes))")
    }
    if let expectedSize, totalBytes != expectedSize {
      throw FetchError(
        .sizeMismatch, "the server announced \(totalBytes) bytes, expected \(expectedSize)")
    }
    state.withLock { $0.expectedTotal = totalBytes }
  }

  /// Appends a chunk.
  ///
  /// - Throws: ``FetchError`` `.tooLarge` / `.sizeMismatch` as soon as the limit is passed; `.storage` on
  ///   a disk error.
  public func write(_ bytes: UnsafeRawBufferPointer) throws {
    writer.drainBlocking()
    try append(count: bytes.count) { try $0.write(bytes) }
  }

  /// Appends a received buffer without copying it (the hash reads the same bytes on its own
  /// queue while the next chunk arrives).
  ///
  /// - Throws: as ``write(_:)-(UnsafeRawBufferPointer)``.
  public func write(_ buffer: ByteBuffer) throws {
    writer.drainBlocking()
    try append(count: buffer.readableBytes) { try $0.write(buffer) }
  }

  /// Queues a received buffer for the sink's writer thread and returns as soon as the receiver
  /// may read on (see `WriteBehind`); ``finishWriting()`` waits for the queue. The limits
  /// hold as for ``write(_:)-(ByteBuffer)``: no byte past them is written, and the error
  /// reaches the receiver by the next call.
  ///
  /// - Throws: ``FetchError`` `.tooLarge` / `.sizeMismatch` / `.storage` from an earlier write.
  public func writeBehind(_ buffer: ByteBuffer) async throws {
    try await writer.submit(buffer) { [self] batch in
      let count = batch.reduce(0) { $0 + $1.readableBytes }
      try append(count: count) { try $0.write(batch) }
    }
  }

  /// Waits until every buffer given to ``writeBehind(_:)`` is written.
  ///
  /// - Throws: the first error a queued write met.
  public func finishWriting() async throws {
    try await writer.drain()
  }

  private func append(count: Int, _ writeTo: (PartialFile) throws -> Void) throws {
    let progress: TransferProgress? = try state.withLock { s in
      let after = s.partial.bytesWritten + Int64(count)
      if after > maxBytes {
        throw FetchError(.tooLarge, "the body passed maxBytes (\(maxBytes) bytes)")
      }
      if let expectedSize, after > expectedSize {
        throw FetchError(
          .sizeMismatch, "the body is larger than the expected \(expectedSize) bytes")
      }
      do { try writeTo(s.partial) } catch {
        throw FetchError(.storage, "writing the download failed: \(error)")
      }
      let now = ContinuousClock.now
      // A complete body is not checkpointed: the commit's own flush follows at once, and a
      // checkpoint there waited for the disk a second time.
      let complete = s.expectedTotal == s.partial.bytesWritten
      // The disk is waited for on the checkpoint queue: a checkpoint used to stop the writer
      // (and with it the socket) for a quarter second per quarter GiB.
      if let journal, !complete, !s.checkpointRunning,
        s.partial.bytesWritten - s.checkpointBytes >= journal.byteInterval
          || now - s.checkpointAt >= journal.interval
      {
        s.checkpointAt = now
        if let pending = journal.prepare(
          s.partial, etag: s.responseETag, total: s.expectedTotal)
        {
          s.checkpointRunning = true
          checkpoints.async { [self] in
            let vouched = journal.complete(pending)
            state.withLock { s in
              s.checkpointRunning = false
              if vouched {
                s.checkpointBytes = pending.record.bytes
                s.journaled = true
              }
            }
          }
        }
      }
      guard now - s.lastProgressAt >= .milliseconds(100) else { return nil }
      s.lastProgressAt = now
      return Self.progress(&s, now: now)
    }
    if let progress { onProgress(progress) }
  }

  /// Appends bytes from `Data`.
  public func write(_ data: Data) throws {
    try data.withUnsafeBytes { try write($0) }
  }

  /// Appends `length` bytes of a cached copy from `offset` (a delta update's reused chunks,
  /// copied by the kernel and hashed as they land), counted as reused for progress. Blocks the
  /// calling thread for the copy: call it off the cooperative pool, after the buffers given to
  /// ``writeBehind(_:)`` are written (``finishWriting()``), so the bytes stay in order.
  ///
  /// - Throws: ``FetchError`` as ``write(_:)-(ByteBuffer)``; `.storage` when the cached copy
  ///   cannot be read.
  func appendCopy(of length: Int64, from source: Int32, at offset: Int64) throws {
    writer.drainBlocking()
    state.withLock { $0.reusedBytes += length }
    try append(count: Int(length)) { try $0.append(copying: length, from: source, at: offset) }
  }

  /// Bytes appended by ``appendCopy(of:from:at:)`` since the last reset.
  var reusedBytes: Int64 { state.withLock { $0.reusedBytes } }

  /// Discards what was written so far (a redirect, or a server that restarted the body).
  public func reset() throws {
    settle()
    writer.clearFailure()
    try state.withLock { s in
      // The record vouches for bytes about to be overwritten: forget it first.
      if s.journaled { journal?.invalidate() }
      s.journaled = false
      s.checkpointBytes = 0
      do { try s.partial.reset() } catch {
        throw FetchError(.storage, "resetting the download failed: \(error)")
      }
      s.rateSamples.removeAll()
      s.reusedBytes = 0
      s.windowStartBytes = 0
      s.windowStart = ContinuousClock.now
    }
  }

  /// Checks the minimum-throughput rule: at least `minimumBytes` in each `window`.
  /// Returns a reason when the transfer should be abandoned.
  func stallReason(window: Duration, minimumBytes: Int64) -> String? {
    state.withLock { s in
      let now = ContinuousClock.now
      guard s.bodyStarted, now - s.windowStart >= window else { return nil }
      let moved = s.partial.bytesWritten - s.windowStartBytes
      s.windowStart = now
      s.windowStartBytes = s.partial.bytesWritten
      if moved < minimumBytes {
        return
          "the transfer stalled (\(moved) bytes in \(DurationText.format(window.timeInterval)))"
      }
      return nil
    }
  }

  /// Reports progress now (at the end of a transfer).
  func flushProgress() {
    let p = state.withLock { s in Self.progress(&s, now: .now) }
    onProgress(p)
  }

  /// The finished body's SHA-256 and size; the file exists afterwards, even for an empty body
  /// (it is created by the first byte).
  ///
  /// - Throws: ``FetchError`` `.storage` when the empty file cannot be created.
  func digest() throws -> (sha256: String, size: Int64) {
    settle()
    return try state.withLock { s in
      do { _ = try s.partial.descriptor() } catch {
        throw FetchError(.storage, "creating the download's file failed: \(error)")
      }
      return (s.partial.hashOfWritten(), s.partial.bytesWritten)
    }
  }

  /// Keeps what was written for a later resume: a final checkpoint of everything written.
  /// Returns whether a record now vouches for it (false: nothing worth keeping, a weak or
  /// missing validator, or no journal).
  func keepForResume() -> Bool {
    guard let journal else { return false }
    settle()
    return state.withLock { s in
      let kept = journal.checkpoint(s.partial, etag: s.responseETag, total: s.expectedTotal)
      if kept { s.partial.close() }
      return kept
    }
  }

  /// Forgets any resume record (after a commit or a failure that discards the bytes).
  func forgetResume() {
    settle()
    state.withLock { s in
      if s.journaled { journal?.invalidate() }
      s.journaled = false
    }
  }

  /// Closes the partial and deletes it if it is still in `tmp/`.
  func discard() {
    settle()
    state.withLock { $0.partial.discard() }
  }

  /// Runs `body` with the partial file (commit, resume bookkeeping), under the sink's lock.
  func withPartial<T>(_ body: (PartialFile) throws -> T) rethrows -> T {
    settle()
    return try state.withLock { try body($0.partial) }
  }

  /// The bytes written, read back into memory with one `pread` of the download's descriptor:
  /// for bodies read whole anyway (a manifest, signed metadata, a JSON or text asset bounded by
  /// its `maxBytes`, the app's validator's input), or their first `limit` bytes (a header).
  /// Empty when nothing was written (a 304 creates no file, and none is made here).
  func readBody(upTo limit: Int = .max) throws -> Data {
    try withPartial { partial in
      partial.bytesWritten == 0
        ? Data()
        : try FileDigest.readAll(
          try partial.descriptor(), path: partial.path,
          size: Int(min(partial.bytesWritten, Int64(limit))))
    }
  }

  private static func progress(_ s: inout State, now: ContinuousClock.Instant) -> TransferProgress {
    s.rateSamples.append((now, s.partial.bytesWritten))
    s.rateSamples.removeAll { now - $0.0 > .seconds(3) }
    var rate = 0.0
    if let first = s.rateSamples.first, first.0 < now {
      rate = Double(s.partial.bytesWritten - first.1) / max((now - first.0).timeInterval, 0.001)
    }
    return TransferProgress(
      receivedBytes: s.partial.bytesWritten, expectedBytes: s.expectedTotal, bytesPerSecond: rate,
      reusedBytes: s.reusedBytes)
  }
}
