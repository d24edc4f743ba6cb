import Foundation
import Synchronization
import Testing

@testable import RemoteAssets

/// The writer thread between the socket and the disk: order kept, memory bounded, the first
/// error kept and reported, nothing written after it.
@Suite struct WriteBehindTests {
  @Test func writesRunInOrderAndDrainWaitsForAll() async throws {
    let writer = WriteBehind()
    let log = Mutex<[Int]>([])
    for i in 0..<500 {
      try await writer.submit(10) { log.withLock { $0.append(i) } }
    }
    try await writer.drain()
    #expect(log.withLock { $0 } == Array(0..<500))
  }

  @Test func aReceiverFasterThanTheDiskWaitsWithinTheBound() async throws {
    let writer = WriteBehind()
    let chunk = WriteBehind.maxBytesInFlight / 4
    // The first write blocks the writer thread until the test signals.
    let blocker = DispatchSemaphore(value: 0)
    try await writer.submit(chunk) { blocker.wait() }
    let submitted = Mutex(1)
    let receiver = Task {
      for _ in 0..<8 {
        try await writer.submit(chunk) {}
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
    blocker.signal()
    try await receiver.value
    try await writer.drain()
    #expect(submitted.withLock { $0 } == 9)
  }

  struct Boom: Error, Equatable {}

  @Test func theFirstErrorIsThrownAndNothingIsWrittenAfterIt() async throws {
    let writer = WriteBehind()
    let ran = Mutex<[Int]>([])
    try await writer.submit(1) { ran.withLock { $0.append(0) } }
    try await writer.submit(1) {
      ran.withLock { $0.append(1) }
      throw Boom()
    }
    // Queued before the error surfaced: skipped, not written after the gap.
    try? await writer.submit(1) { ran.withLock { $0.append(2) } }
    await #expect(throws: Boom.self) { try await writer.drain() }
    await #expect(throws: Boom.self) { try await writer.submit(1) {} }
    #expect(ran.withLock { $0 } == [0, 1])
    writer.clearFailure()
    try await writer.submit(1) { ran.withLock { $0.append(3) } }
    try await writer.drain()
    #expect(ran.withLock { $0 } == [0, 1, 3])
  }
}
