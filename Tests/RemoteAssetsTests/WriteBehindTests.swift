import Dispatch
import Foundation
import NIOCore
import Synchronization
import Testing

@testable import RemoteAssets

/// The writer thread between the socket and the disk: order kept, memory bounded, the first
/// error kept and reported, nothing written after it.
@Suite struct WriteBehindTests {
  static func buffer(_ value: UInt8, count: Int = 1) -> ByteBuffer {
    ByteBuffer(repeating: value, count: count)
  }

  @Test func writesRunInOrderAndDrainWaitsForAll() async throws {
    let writer = WriteBehind()
    let log = Mutex<[UInt8]>([])
    let batches = Mutex(0)
    for i in 0..<500 {
      try await writer.submit(Self.buffer(UInt8(i % 256))) { batch in
        batches.withLock { $0 += 1 }
        log.withLock { log in for b in batch { log.append(contentsOf: b.readableBytesView) } }
      }
    }
    try await writer.drain()
    #expect(log.withLock { $0 } == (0..<500).map { UInt8($0 % 256) })
    #expect(batches.withLock { $0 } <= 500)
  }

  @Test func aReceiverFasterThanTheDiskWaitsWithinTheBound() async throws {
    let writer = WriteBehind()
    let chunk = WriteBehind.maxBytesInFlight / 4
    // The first batch blocks the writer thread until the test signals.
    let blocker = DispatchSemaphore(value: 0)
    let blocked = Mutex(true)
    let write: @Sendable ([ByteBuffer]) throws -> Void = { _ in
      if blocked.withLock({ $0 }) { blocker.wait() }
    }
    try await writer.submit(Self.buffer(1, count: chunk), to: write)
    let submitted = Mutex(1)
    let receiver = Task {
      for _ in 0..<8 {
        try await writer.submit(Self.buffer(2, count: chunk), to: write)
        submitted.withLock { $0 += 1 }
      }
    }
    // The receiver stops once the bound is reached (4 chunks queued), not after all 9; it is
    // given ample turns to run past it if the bound did not hold.
    let deadline = ContinuousClock.now + .seconds(30)
    while submitted.withLock({ $0 }) < 3, ContinuousClock.now < deadline {
      await Task.yield()
    }
    for _ in 0..<50 { await Task.yield() }
    #expect(submitted.withLock { $0 } <= 4, "no more than the bound is queued")
    blocked.withLock { $0 = false }
    blocker.signal()
    try await receiver.value
    try await writer.drain()
    #expect(submitted.withLock { $0 } == 9)
  }

  struct Boom: Error, Equatable {}

  @Test func theFirstErrorIsThrownAndNothingIsWrittenAfterIt() async throws {
    let writer = WriteBehind()
    let written = Mutex<[UInt8]>([])
    let write: @Sendable ([ByteBuffer]) throws -> Void = { batch in
      for b in batch {
        let value = b.readableBytesView.first ?? 0
        if value == 9 { throw Boom() }
        written.withLock { $0.append(value) }
      }
    }
    try await writer.submit(Self.buffer(0), to: write)
    try await writer.drain()
    try await writer.submit(Self.buffer(9), to: write)  // fails on the writer thread
    // Queued before the failure surfaced, or refused after it: never written after the gap.
    try? await writer.submit(Self.buffer(1), to: write)
    await #expect(throws: Boom.self) { try await writer.drain() }
    await #expect(throws: Boom.self) { try await writer.submit(Self.buffer(2), to: write) }
    #expect(written.withLock { $0 } == [0])
    writer.clearFailure()
    try await writer.submit(Self.buffer(3), to: write)
    try await writer.drain()
    #expect(written.withLock { $0 } == [0, 3])
  }
}
