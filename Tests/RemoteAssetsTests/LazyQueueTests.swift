import Crypto
import Dispatch
import NIOCore
import Synchronization
import Testing

@testable import RemoteAssets

/// Queues made on first use: a refresh that ends in a 304, or a small body, makes none, and
/// waiting for work still waits for all that was sent.
@Suite struct LazyQueueTests {
  @Test func waitingForANeverUsedQueueMakesNone() {
    let queue = LazyQueue(label: "test", qos: .utility)
    queue.drain()
    #expect(!queue.wasMade)
    queue.async {}
    #expect(queue.wasMade)
  }

  @Test func drainWaitsForWorkAlreadySent() {
    let queue = LazyQueue(label: "test", qos: .utility)
    let order = Mutex<[Int]>([])
    let gate = DispatchSemaphore(value: 0)
    queue.async {
      gate.wait()
      order.withLock { $0.append(1) }
    }
    // The work waits for a thread of the global pool; a drain that did not wait would append
    // 2 first.
    DispatchQueue.global().async { gate.signal() }
    queue.drain()
    order.withLock { $0.append(2) }
    #expect(order.withLock { $0 } == [1, 2])
  }

  @Test func aSmallBodyNeedsNoWriterOrHashQueue() throws {
    let hash = OverlappedSHA256()
    hash.update(ByteBuffer(repeating: 7, count: 4096))
    _ = hash.snapshot()
    hash.reset()
    #expect(!hash.madeQueue)
    // Past the inline megabyte the queue takes over, and the hash is still the bytes'.
    let large = [UInt8](repeating: 7, count: OverlappedSHA256.inlineBytes + 1)
    hash.update(ByteBuffer(bytes: large))
    #expect(hash.madeQueue)
    #expect(hash.snapshot().finalize() == SHA256.hash(data: large))

    let writer = WriteBehind()
    writer.drainBlocking()
    #expect(!writer.madeQueue)
  }
}
