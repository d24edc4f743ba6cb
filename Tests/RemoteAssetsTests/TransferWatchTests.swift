import AssetWatchTestKit
import Foundation
import Synchronization
import Testing

@testable import RemoteAssets

/// The fetcher's one watchdog: it cancels a transfer past its overall deadline or below the
/// minimum throughput, says why, leaves a transfer that ends in time alone, and stops when no
/// transfer is left (an idle fetcher has no timer).
@Suite(.timeLimit(.minutes(1))) struct TransferWatchTests {
  /// Counts the cancellations of one transfer and lets a test wait for the first.
  final class Cancellation: Sendable {
    private let count = Mutex(0)
    let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
      (stream, continuation) = AsyncStream.makeStream()
    }

    func cancel() {
      count.withLock { $0 += 1 }
      continuation.yield()
    }

    var times: Int { count.withLock { $0 } }

    func first() async {
      var iterator = stream.makeAsyncIterator()
      _ = await iterator.next()
    }
  }

  /// Waits until `condition` holds, for at most 10 s (a loaded machine), checking each 10 ms.
  static func eventually(_ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
      if ContinuousClock.now > deadline { return false }
      try await Task.sleep(for: .milliseconds(10))
    }
    return true
  }

  /// Watches one transfer into a new sink (made ready by `prepare`) with a deadline of
  /// `timeout` + `bytes` at `rate`, waits until the watch cancels it, and returns why, the watch
  /// and how many times the transfer was cancelled.
  static func cancelled(
    timeout: Double, bytes: Int64, rate: Int64,
    prepare: (DownloadSink) throws -> Void = { _ in }
  ) async throws -> (reason: String?, watch: TransferWatch, times: Int) {
    try await withTemporaryDirectory { (dir: TemporaryDirectory) in
      let sink = try makeSink(in: dir.url, maxBytes: bytes, expectedSize: nil)
      defer { sink.discard() }
      try prepare(sink)
      let watch = TransferWatch(minimumBytesPerSecond: rate, interval: .milliseconds(10))
      let deadline = TransferDeadline(timeout: timeout, bytes: bytes, minimumBytesPerSecond: rate)
      let cancellation = Cancellation()
      let id = watch.start(
        sink: sink, deadline: deadline, timeout: timeout, cancel: { cancellation.cancel() })
      await cancellation.first()
      return (watch.end(id), watch, cancellation.times)
    }
  }

  @Test func aTransferPastItsDeadlineIsCancelledWithTheReason() async throws {
    // Allowed 0.05 s + 1,000 bytes at 1 MB/s: 0.051 s.
    let result = try await Self.cancelled(timeout: 0.05, bytes: 1000, rate: 1_000_000)
    let reason = try #require(result.reason)
    #expect(reason.contains("overall deadline"), "\(reason)")
    #expect(try await Self.eventually { !result.watch.counts().watching }, "it stops when idle")
    #expect(result.times == 1)
  }

  @Test func aBodyBelowTheMinimumThroughputIsCancelledAsAStall() async throws {
    // An overall deadline far away (1 GiB at 1 KB/s): only the throughput rule can fire.
    let result = try await Self.cancelled(timeout: 0.2, bytes: 1 << 30, rate: 1000) { sink in
      try sink.announce(totalBytes: nil)
      try sink.write(Data(repeating: 7, count: 10))
    }
    let reason = try #require(result.reason)
    #expect(reason.contains("stalled") && reason.contains("below the minimum 1000 bytes/s"))
  }

  /// A body that is not used (an HTTP/2 304's) read past its bound: the watch stops the
  /// transfer, with the overall deadline and the throughput far away.
  /// Watches one transfer into a new sink whose deadline (an hour) and throughput (1 byte/s)
  /// are far away, and runs `body` with the watch, the deadline, the cancellations, the
  /// transfer's id and the sink.
  static func watchingALongTransfer(
    _ body: (TransferWatch, TransferDeadline, Cancellation, UInt64, DownloadSink) async throws
      -> Void
  ) async throws {
    try await withTemporaryDirectory { (dir: TemporaryDirectory) in
      let sink = try makeSink(in: dir.url, maxBytes: 1000, expectedSize: nil)
      defer { sink.discard() }
      let watch = TransferWatch(minimumBytesPerSecond: 1, interval: .milliseconds(10))
      let deadline = TransferDeadline(timeout: 3600, bytes: 1000, minimumBytesPerSecond: 1)
      let cancellation = Cancellation()
      let id = watch.start(
        sink: sink, deadline: deadline, timeout: 3600, cancel: { cancellation.cancel() })
      try await body(watch, deadline, cancellation, id, sink)
    }
  }

  @Test func anUnusedBodyReadPastItsBoundIsStopped() async throws {
    try await Self.watchingALongTransfer { watch, deadline, cancellation, id, _ in
      deadline.boundUnusedBody(to: 0.05)
      await cancellation.first()
      #expect(watch.end(id)?.contains("unused body") == true)
      #expect(cancellation.times == 1)
    }
  }

  @Test func aTransferThatEndsInTimeIsLeftAloneAndTheWatchStops() async throws {
    try await Self.watchingALongTransfer { watch, deadline, cancellation, id, sink in
      #expect(watch.counts().watched == 1 && watch.counts().watching)
      #expect(watch.end(id) == nil)
      let stopped = try await Self.eventually { !watch.counts().watching }
      #expect(stopped)
      #expect(cancellation.times == 0)
      // A new transfer starts the watch again.
      let again = watch.start(
        sink: sink, deadline: deadline, timeout: 3600, cancel: { cancellation.cancel() })
      #expect(watch.counts().watching)
      _ = watch.end(again)
    }
  }
}
