import Dispatch
import Synchronization

/// A serial writer thread between the socket and the disk: a received chunk is queued and the
/// receiver asks for the next one at once, so reading the socket and writing the file overlap
/// instead of taking turns.
///
/// Measured on a 256 MiB body from nginx on loopback: the HTTP client's body alone arrives in
/// under 0.2 s, but reading a chunk, writing it, then asking for the next one took a second,
/// because the client reads only after the consumer asks (its async body keeps one chunk).
///
/// At most ``maxBytesInFlight`` wait for the writer; a receiver faster than the disk is
/// suspended (without blocking a thread) until the writer catches up, so memory stays bounded.
/// The first error a write throws is kept: the next ``submit(_:_:)`` and ``drain()`` throw it.
final class WriteBehind: Sendable {
  /// The most bytes queued for the writer at once.
  static let maxBytesInFlight = 8 << 20

  private struct State {
    var queued = 0
    var failure: (any Error)?
    var waiter: CheckedContinuation<Void, Never>?
  }

  private let state = Mutex(State())
  private let queue = DispatchQueue(label: "RemoteAssets.writer", qos: .userInitiated)

  init() {}

  /// Queues `work` (which writes `count` bytes) and returns once fewer than
  /// ``maxBytesInFlight`` bytes wait.
  ///
  /// - Throws: the error an earlier write threw (nothing more is queued after one).
  func submit(_ count: Int, _ work: @escaping @Sendable () throws -> Void) async throws {
    try state.withLock { s in
      if let failure = s.failure { throw failure }
      s.queued += count
    }
    queue.async { [self] in
      // After a failure the rest is skipped: its bytes would land after a gap.
      let failed = state.withLock { $0.failure != nil }
      var thrown: (any Error)?
      if !failed {
        do { try work() } catch { thrown = error }
      }
      let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
        s.queued -= count
        if let thrown, s.failure == nil { s.failure = thrown }
        guard s.queued < Self.maxBytesInFlight || s.failure != nil else { return nil }
        defer { s.waiter = nil }
        return s.waiter
      }
      waiter?.resume()
    }
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

  /// Waits, without blocking a thread, until every queued write ran.
  ///
  /// - Throws: the first error a write threw.
  func drain() async throws {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      queue.async { continuation.resume() }
    }
    if let failure = state.withLock({ $0.failure }) { throw failure }
  }

  /// Waits, blocking the calling thread, until every queued write ran (for the synchronous
  /// paths that follow a transfer: reset, digest, discard; usually nothing is left by then).
  func drainBlocking() {
    queue.sync {}
  }

  /// Forgets a kept error (the body restarts from zero).
  func clearFailure() {
    state.withLock { $0.failure = nil }
  }
}
