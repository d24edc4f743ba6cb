import Foundation

/// A self-pipe that wakes the terminal loop's wait for keys from any thread: data for the app
/// arrived (an engine event in its inbox), so the frame should be asked for now, not at the next
/// poll.
///
/// With it, a quiet app is asked for a frame once a second (its clock) and whenever something
/// arrives, instead of polling four times a second to find out. The pipe is non-blocking at both
/// ends: a wake into a full pipe is dropped (one is pending already), and draining never waits.
///
/// ```swift
/// let signal = WakeSignal()
/// signal?.wake()  // from the thread that queued data
/// ```
public final class WakeSignal: Sendable {
  /// The end the terminal loop polls, with standard input.
  public let descriptor: Int32
  private let writeEnd: Int32

  /// Opens the pipe; nil when the process is out of descriptors (the loop then polls as before).
  public init?() {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends {
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
    descriptor = ends[0]
    writeEnd = ends[1]
  }

  deinit {
    close(descriptor)
    close(writeEnd)
  }

  /// Makes ``descriptor`` readable until ``drain()``. Safe from any thread; never blocks.
  public func wake() {
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)  // EAGAIN: the pipe is full, a wake is pending already
  }

  /// Whether a wake is pending: a wait on ``descriptor`` would end at once.
  package var isRaised: Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
  }

  /// Reads every pending wake, so the next wait blocks until a new one.
  public func drain() {
    var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    while withUnsafeMutableBytes(of: &bytes, { read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
  }
}
