import Crypto
import Dispatch
import NIOCore
import Synchronization

/// A running SHA-256 that, once a body is large enough to matter, is computed on a serial queue
/// of its own while the caller goes on receiving and writing: on a machine with two cores the
/// hash (a third of a large download's CPU time) overlaps the socket and the disk instead of
/// adding to them.
///
/// Small bodies (the first ``inlineBytes``) are hashed on the caller's thread: a queue hop per
/// chunk costs more than hashing a few kilobytes. Once a chunk has gone to the queue, every later
/// one does too, so the order of the bytes is the order of the calls. At most
/// ``maxBytesInFlight`` wait for the queue; a writer faster than the hash waits for it (the
/// backpressure reaches the socket), so memory stays bounded.
///
/// Not thread-safe for concurrent writers: one writer calls ``update(_:)``/``reset()``/
/// ``snapshot()`` at a time (the ``PartialFile`` that owns it is serialized by its sink's lock).
final class OverlappedSHA256: Sendable {
  /// Bytes hashed on the caller's thread before the queue takes over.
  static let inlineBytes = 1 << 20
  /// The most bytes queued for hashing at once.
  static let maxBytesInFlight = 8 << 20

  private struct Feed {
    /// Bytes given to ``update(_:)`` since the last reset.
    var fed = 0
    /// Bytes handed to the queue and not hashed yet.
    var queued = 0
    /// Whether chunks now go to the queue.
    var overlapping = false
  }

  /// The writer's bookkeeping (the queue only decrements `queued`).
  private let feed = Mutex(Feed())
  /// The hash: touched by the writer while inline, by the queue while overlapping, and by the
  /// writer again only after `queue.drain()` (snapshot, reset), so it is never contended.
  private let digest = Mutex(SHA256())
  /// Wakes a writer waiting for the queue to drain below ``maxBytesInFlight``.
  private let drained = DispatchSemaphore(value: 0)
  /// Made by the first body past ``inlineBytes`` (``LazyQueue``).
  private let queue = LazyQueue(label: "RemoteAssets.sha256", qos: .userInitiated)

  init() {}

  /// Feeds `buffer` to the hash: at once for the first megabyte, on the hash queue after that.
  /// Blocks only while more than ``maxBytesInFlight`` are waiting to be hashed.
  func update(_ buffer: ByteBuffer) {
    update(CollectionOfOne(buffer))
  }

  /// Feeds `buffers` in order, with one hand-over to the hash queue for the whole batch.
  func update(_ buffers: some Collection<ByteBuffer> & Sendable) {
    let count = buffers.reduce(0) { $0 + $1.readableBytes }
    if count == 0 { return }
    let inline: Bool = feed.withLock { s in
      s.fed += count
      if !s.overlapping, s.fed <= Self.inlineBytes { return true }
      s.overlapping = true
      return false
    }
    if inline {
      hash(buffers)
      return
    }
    while true {
      let admitted = feed.withLock { s in
        guard s.queued == 0 || s.queued + count <= Self.maxBytesInFlight else { return false }
        s.queued += count
        return true
      }
      if admitted { break }
      drained.wait()
    }
    queue.async { [self] in
      hash(buffers)
      feed.withLock { $0.queued -= count }
      drained.signal()
    }
  }

  private func hash(_ buffers: some Collection<ByteBuffer>) {
    digest.withLock { hash in
      for buffer in buffers {
        buffer.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
      }
    }
  }

  /// Feeds a copy of `bytes` (for writers that do not hold a `ByteBuffer`).
  func update(copying bytes: UnsafeRawBufferPointer) {
    if bytes.isEmpty { return }
    update(ByteBuffer(bytes: bytes))
  }

  /// Whether the hash queue was ever needed (tests: a body of at most ``inlineBytes`` never
  /// needs it).
  var madeQueue: Bool { queue.wasMade }

  /// The hash of everything fed so far, once the queue has caught up; the running hash goes on.
  func snapshot() -> SHA256 {
    queue.drain()
    return digest.withLock { $0 }
  }

  /// Starts over (the body restarted), after the queue has finished with the old bytes.
  func reset() {
    queue.drain()
    feed.withLock { $0 = Feed() }
    digest.withLock { $0 = SHA256() }
  }
}
