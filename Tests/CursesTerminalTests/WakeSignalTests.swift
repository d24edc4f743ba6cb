import Foundation
import Testing

@testable import CursesTerminal

@Suite struct WakeSignalTests {
  @Test func aWakeMakesTheDescriptorReadableUntilDrained() throws {
    let signal = try #require(WakeSignal())
    #expect(!signal.isRaised)
    signal.wake()
    signal.wake()
    #expect(signal.isRaised)
    signal.drain()
    #expect(!signal.isRaised)
  }

  /// A pipe holds 64 KiB: wakes past that are dropped, never block the thread that raises them.
  @Test func wakesIntoAFullPipeNeitherBlockNorStayAfterADrain() throws {
    let signal = try #require(WakeSignal())
    for _ in 0..<70_000 { signal.wake() }
    #expect(signal.isRaised)
    signal.drain()
    #expect(!signal.isRaised)
  }

  /// A wake from another thread ends a wait that would otherwise run for ten seconds.
  @Test func aWakeFromAnotherThreadEndsAPollAtOnce() async throws {
    let signal = try #require(WakeSignal())
    let waiter = Task.detached {
      var entry = pollfd(fd: signal.descriptor, events: Int16(POLLIN), revents: 0)
      return poll(&entry, 1, 10_000)
    }
    signal.wake()
    #expect(await waiter.value == 1)
  }
}
