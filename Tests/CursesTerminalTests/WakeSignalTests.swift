import Foundation
import Testing

@testable import CursesTerminal

@Suite struct WakeSignalTests {
  /// Whether `descriptor` is readable now (a poll that does not wait).
  static func isReadable(_ descriptor: Int32) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
  }

  @Test func aWakeMakesTheDescriptorReadableUntilDrained() throws {
    let signal = try #require(WakeSignal())
    #expect(!Self.isReadable(signal.descriptor))
    signal.wake()
    signal.wake()
    #expect(Self.isReadable(signal.descriptor))
    signal.drain()
    #expect(!Self.isReadable(signal.descriptor))
  }

  /// A pipe holds 64 KiB: wakes past that are dropped, never block the thread that raises them.
  @Test func wakesIntoAFullPipeNeitherBlockNorStayAfterADrain() throws {
    let signal = try #require(WakeSignal())
    for _ in 0..<70_000 { signal.wake() }
    #expect(Self.isReadable(signal.descriptor))
    signal.drain()
    #expect(!Self.isReadable(signal.descriptor))
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
