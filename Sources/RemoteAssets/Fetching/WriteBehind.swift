import Dispatch
import NIOCore
import Synchronization

/// A serial writer thread between the socket and the disk: a received chunk is queued and the
/// receiver asks for the next one at once, so reading the socket and writing the file overlap
/// instead of taking turns.
///
/// Measured on a 256 MiB body from nginx on loopback: the HTTP client's body alone arrives in
/// under 0.2 s, but reading a chunk, writing it, then asking for the next one took a second,
/// because the client reads only after the consumer asks (its async body keeps one chunk).
///
/// The writer takes everything queued at once and hands it to `write` as one batch, so a
/// receiver faster than the disk costs one thread hand-over per batch, not per 64 KiB chunk. At
/// most ``maxBytesInFlight`` wait; a receiver past that is suspended (without blocking a thread)
/// until the writer catches up, so memory stays bounded. The first error `write` throws is kept:
/// the next ``submit(_:)`` and ``drain()`` throw it, and nothing queued after it is written.
final class WriteBehind: Sendable {
  /// The most bytes queued for the writer at once.
  static let maxBytesInFlight = 8 << 20

  private struct State {
    var pending: [ByteBuffer] = []
    var queued = 0
    var writing = false
    var failure: (any Error)?
    var waiter: CheckedContinuation<Void, Never>?
    /// Where batches go; held only while something is queued (it usually retains the sink).
    var write: (@Sendable ([ByteBuffer]) throws -> Void)?
  }

  private let state = Mutex(State())
  /// Made by the first buffer queued (``LazyQueue``): a small body is written on the
  /// receiver's thread and never needs it.
  private let queue = LazyQueue(label: "RemoteAssets.writer", qos: .userInitiated)

  init() {}

  /// Queues `buffer` for `write`, which the writer thread calls with batches of queued buffers
  /// in order, and returns once fewer than ``maxBytesInFlight`` bytes wait.
  ///
  /// - Throws: the error an earlier write threw (nothing more is queued after one).
  func submit(
    _ buffer: ByteBuffer, to write: @escaping @Sendable ([ByteBuffer]) throws -> Void
  ) async throws {
    let start = try state.withLock { s -> Bool in
      if let failure = s.failure { throw failure }
      s.write = write
      s.pending.append(buffer)
      s.queued += buffer.readableBytes
      guard !s.writing else { return false }
      s.writing = true
      return true
    }
    if start { queue.async { [self] in writeQueued() } }
    let mustWait = state.withLock { $0.queued >= Self.maxBytesInFlight && $0.failure == nil }
    guard mustWait else { return }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resumeNow = state.withLock { s -> Bool in
        if s.queued < Self.maxBytesInFlight || s.failure != nil { return true }
        s.waiter = continuation
        return false
      }
      if resumeNow { continuation.resume() }
    }
    if let failure = state.withLock({ $0.failure }) { throw failure }
  }

  /// On the writer's queue: writes batches until nothing is queued.
  private func writeQueued() {
    while true {
      let next = state.withLock { s -> ([ByteBuffer], @Sendable ([ByteBuffer]) throws -> Void)? in
        guard !s.pending.isEmpty, s.failure == nil, let write = s.write else {
          // After a failure the rest is dropped: its bytes would land after a gap.
          s.queued -= s.pending.reduce(0) { $0 + $1.readableBytes }
          s.pending.removeAll()
          s.writing = false
          s.write = nil
          return nil
        }
        defer { s.pending.removeAll(keepingCapacity: true) }
        return (s.pending, write)
      }
      guard let (batch, write) = next else { break }
      var thrown: (any Error)?
      do { try write(batch) } catch { thrown = error }
      let bytes = batch.reduce(0) { $0 + $1.readableBytes }
      let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
        s.queued -= bytes
        if let thrown, s.failure == nil { s.failure = thrown }
        guard s.queued < Self.maxBytesInFlight || s.failure != nil else { return nil }
        defer { s.waiter = nil }
        return s.waiter
      }
      waiter?.resume()
    }
    // Nothing is queued now: a receiver still waiting goes on.
    let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
      defer { s.waiter = nil }
      return s.waiter
    }
    waiter?.resume()
  }

  /// Waits, without blocking a thread, until every queued buffer is written.
  ///
  /// - Throws: the first error a write threw.
  func drain() async throws {
    // Nothing queued and nothing being written (a small body written as it arrived, a 304):
    // no trip to the writer's queue and back.
    let idle = state.withLock { !$0.writing && $0.pending.isEmpty }
    if !idle {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        queue.async { continuation.resume() }
      }
    }
    if let failure = state.withLock({ $0.failure }) { throw failure }
  }

  /// Waits, blocking the calling thread, until every queued buffer is written (for the
  /// synchronous paths that follow a transfer: reset, digest, discard; usually nothing is left
  /// by then).
  func drainBlocking() {
    queue.drain()
  }

  /// Whether the writer thread's queue was ever needed (tests: a small body never needs it).
  var madeQueue: Bool { queue.wasMade }

  /// Forgets a kept error (the body restarts from zero).
  func clearFailure() {
    state.withLock { $0.failure = nil }
  }
}
