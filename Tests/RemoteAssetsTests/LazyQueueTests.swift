import AssetWatchTestKit
import Crypto
import Dispatch
import Foundation
import NIOCore
import RemoteAssetsTestKit
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

  /// Through the fetcher, from a real origin: a 304 and a body of at most `smallBody` make
  /// neither the writer's nor the checkpoints' queue; a larger body is written by the writer.
  @Test func aFetchOfA304OrASmallBodyMakesNoSinkQueue() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await origin.setResource(
          "/small.bin", body: Data(repeating: 1, count: 4096),
          contentType: "application/octet-stream")
        await origin.setResource(
          "/large.bin", body: Data(repeating: 2, count: Int(HTTPFetcher.smallBody) + 1),
          contentType: "application/octet-stream")
        let fetcher = HTTPFetcher()
        func fetch(_ path: String, etag: String? = nil) async throws -> (
          FetchResponse, writer: Bool, checkpoints: Bool
        ) {
          var request = FetchRequest(
            url: try #require(URL(string: "\(origin.baseURL)\(path)")), allowInsecure: true)
          request.etag = etag
          let sink = try makeSink(in: dir.url, maxBytes: 1 << 20, expectedSize: nil)
          defer { sink.discard() }
          let response = try await fetcher.fetch(request, into: sink)
          let made = sink.madeQueues
          return (response, made.writer, made.checkpoints)
        }

        let small = try await fetch("/small.bin")
        guard case .downloaded(let metadata) = small.0 else {
          Issue.record("no body: \(small.0)")
          return
        }
        #expect(!small.writer && !small.checkpoints)
        let unchanged = try await fetch("/small.bin", etag: metadata.etag)
        guard case .notModified = unchanged.0 else {
          Issue.record("no 304: \(unchanged.0)")
          return
        }
        #expect(!unchanged.writer && !unchanged.checkpoints)
        let large = try await fetch("/large.bin")
        #expect(large.writer)
        try await fetcher.shutdown()
      }
    }
  }
}
