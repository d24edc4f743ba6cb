import Testing

@testable import RemoteAssets

/// The record's monotonic readings (fixed layout, measured from the process's first reading)
/// keep the clock's order and its durations.
@Suite struct MonotonicReadingTests {
  @Test func readingsFollowTheClock() async throws {
    let first = MonotonicReading.now
    let clockBefore = ContinuousClock.now
    try await Task.sleep(for: .milliseconds(20))
    let second = MonotonicReading.now
    let clockElapsed = clockBefore.duration(to: .now)
    #expect(first < second)
    let measured = first.duration(to: second)
    #expect(measured >= .milliseconds(20))
    // The readings' span lies within the clock's own, taken around them.
    #expect(measured <= clockElapsed + .milliseconds(1))
    #expect(second.duration(to: first) == .zero - measured)
  }
}
