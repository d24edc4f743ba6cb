import Foundation
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
  }

  // `PartialFile` is not Sendable; the Mutex is the only way to reach it, so access is serialized.
  private let state: Mutex<State>
  private let maxBytes: Int64
  private let expectedSize: Int64?
  private let onProgress: @Sendable (TransferProgress) -> Void

  /// The partial file's path.
  let path: String

  /// Bytes already in the partial when the sink was made (a resumed download), else 0.
  public let resumeOffset: Int64

  /// Creates a sink writing a new partial file at `path`, or continuing the kept partial there
  /// after its first `resuming` bytes.
  init(
    path: String, maxBytes: Int64, expectedSize: Int64?, resuming: Int64? = nil,
    onProgress: @escaping @Sendable (TransferProgress) -> Void
  ) throws {
    let now = ContinuousClock.now
    let partial =
      if let resuming { try PartialFile(resuming: path, prefix: resuming) } else {
        try PartialFile(path: path)
      }
    self.path = path
    self.resumeOffset = resuming ?? 0
    var initial = State(
      partial: partial, expectedTotal: expectedSize, lastProgressAt: now, windowStart: now)
    initial.windowStartBytes = resuming ?? 0
    self.state = Mutex(initial)
    self.maxBytes = maxBytes
    self.expectedSize = expectedSize
    self.onProgress = onProgress
  }

  /// Bytes written so far.
  public var bytesWritten: Int64 { state.withLock { $0.partial.bytesWritten } }

  /// Tells the sink the total the server announced (Content-Length).
  ///
  /// - Throws: ``FetchError`` `.tooLarge` or `.size` at once when the total cannot be accepted.
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
      throw FetchError(.size, "the server announced \(totalBytes) bytes, expected \(expectedSize)")
    }
    state.withLock { $0.expectedTotal = totalBytes }
  }

  /// Appends a chunk.
  ///
  /// - Throws: ``FetchError`` `.tooLarge` / `.size` as soon as the limit is passed; `.storage` on
  ///   a disk error.
  public func write(_ bytes: UnsafeRawBufferPointer) throws {
    let progress: TransferProgress? = try state.withLock { s in
      let after = s.partial.bytesWritten + Int64(bytes.count)
      if after > maxBytes {
        throw FetchError(.tooLarge, "the body passed maxBytes (\(maxBytes) bytes)")
      }
      if let expectedSize, after > expectedSize {
        throw FetchError(.size, "the body is larger than the expected \(expectedSize) bytes")
      }
      do { try s.partial.write(bytes) } catch {
        throw FetchError(.storage, "writing the download failed: \(error)")
      }
      let now = ContinuousClock.now
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

  /// Discards what was written so far (a redirect, or a server that restarted the body).
  public func reset() throws {
    try state.withLock { s in
      do { try s.partial.reset() } catch {
        throw FetchError(.storage, "resetting the download failed: \(error)")
      }
      s.rateSamples.removeAll()
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
        let seconds =
          Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        return "the transfer stalled (\(moved) bytes in \(DurationText.format(seconds)))"
      }
      return nil
    }
  }

  /// Reports progress now (at the end of a transfer).
  func flushProgress() {
    let p = state.withLock { s in Self.progress(&s, now: .now) }
    onProgress(p)
  }

  /// The finished body's SHA-256 and size.
  func digest() -> (sha256: String, size: Int64) {
    state.withLock { ($0.partial.finalizeHash(), $0.partial.bytesWritten) }
  }

  /// Flushes the partial to disk (before it is renamed into `objects/`).
  func sync() throws { try state.withLock { try $0.partial.sync() } }

  /// Where a resumed request could continue: the bytes held and the response's strong ETag.
  /// nil when nothing worth keeping was written or the validator is weak or missing.
  func resumePoint(minimumBytes: Int64) -> (bytes: Int64, etag: String, total: Int64?)? {
    state.withLock { s in
      guard s.partial.bytesWritten >= minimumBytes, let etag = s.responseETag,
        !etag.hasPrefix("W/")
      else { return nil }
      return (s.partial.bytesWritten, etag, s.expectedTotal)
    }
  }

  /// Flushes and closes the partial but leaves it on disk (kept for a resume).
  func keep() throws {
    try state.withLock { s in
      try s.partial.sync()
      s.partial.close()
    }
  }

  /// Closes the partial and deletes it if it is still in `tmp/`.
  func discard() { state.withLock { $0.partial.discard() } }

  private static func progress(_ s: inout State, now: ContinuousClock.Instant) -> TransferProgress {
    s.rateSamples.append((now, s.partial.bytesWritten))
    s.rateSamples.removeAll { now - $0.0 > .seconds(3) }
    var rate = 0.0
    if let first = s.rateSamples.first, first.0 < now {
      let seconds =
        Double((now - first.0).components.attoseconds) / 1e18
        + Double((now - first.0).components.seconds)
      rate = Double(s.partial.bytesWritten - first.1) / max(seconds, 0.001)
    }
    return TransferProgress(
      receivedBytes: s.partial.bytesWritten, expectedBytes: s.expectedTotal, bytesPerSecond: rate)
  }
}
