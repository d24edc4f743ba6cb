import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Nothing hangs: every HTTP transfer ends within `timeout + bytes / minimum throughput`.
@Suite struct TransferDeadlineTests {
  /// An unused body's bound: overdue only past it, and never once the body ended.
  @Test func anUnusedBodyIsOverdueOnlyPastItsBoundAndUntilItEnds() {
    let start = ContinuousClock.now
    let deadline = TransferDeadline(
      timeout: 30, bytes: 100, minimumBytesPerSecond: 1000, start: start)
    #expect(!deadline.unusedBodyOverdue(at: start + .seconds(3600)), "no unused body read")
    deadline.boundUnusedBody(to: 0.5, from: start)
    #expect(!deadline.unusedBodyOverdue(at: start + .milliseconds(400)))
    #expect(deadline.unusedBodyOverdue(at: start + .milliseconds(600)))
    #expect(deadline.exceededReason(at: start + .milliseconds(600)) == nil, "not a failure")
    deadline.endUnusedBody()
    #expect(!deadline.unusedBodyOverdue(at: start + .seconds(3600)))
  }

  @Test func allowanceIsTimeoutPlusSizeAtTheFloor() {
    let start = ContinuousClock.now
    let d = TransferDeadline(
      timeout: 3, bytes: 2048, minimumBytesPerSecond: 1024, start: start)
    #expect(d.allowance == 5)
    #expect(d.exceededReason(at: start + .milliseconds(4900)) == nil)
    let reason = d.exceededReason(at: start + .milliseconds(5100))
    #expect(reason?.contains("overall deadline of 5.0s") == true, "\(reason ?? "nil")")
    #expect(reason?.contains("timeout 3.0s + 2048 bytes") == true)
    // An announced length only ever tightens it.
    d.limitBody(to: 1024)
    #expect(d.allowance == 4)
    d.limitBody(to: 1 << 40)
    #expect(d.allowance == 4)
  }

  @Test func requestSizesPickTheSmallestBound() {
    var request = FetchRequest(
      url: URL(string: "http://127.0.0.1/x")!, maxBytes: 10_240, timeout: 1)
    #expect(TransferDeadline(for: request, minimumBytesPerSecond: 1024).allowance == 11)
    request.expectedSize = 1024
    #expect(TransferDeadline(for: request, minimumBytesPerSecond: 1024).allowance == 2)
    // A resume may be answered with the whole body: only a 206 tightens it (to what is left).
    request.resume = (offset: 512, etag: "\"e\"")
    #expect(TransferDeadline(for: request, minimumBytesPerSecond: 1024).allowance == 2)
  }

  @Test func absurdInputsNeverTrap() {
    for timeout in [TimeInterval.nan, .infinity, -.infinity, -1, 1e300, 0] {
      let d = TransferDeadline(timeout: timeout, bytes: .max, minimumBytesPerSecond: 0)
      #expect(d.allowance.isFinite && d.allowance <= TransferDeadline.ceiling)
      _ = d.exceededReason()
      _ = TransferDeadline.duration(timeout)
      _ = TransferDeadline.milliseconds(timeout)
    }
  }

  /// An error body dripped slowly is read by neither the stall watchdog (which times 2xx bodies)
  /// nor the client's head deadline: only the overall deadline ends it.
  @Test func slowDripErrorBodyHitsTheOverallDeadline() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    await origin.setHandler("/a.json") { _ in
      OriginResponse(
        status: 503, body: .data(Data(repeating: 0x61, count: 400)),
        pacing: .drip(bytes: 2, every: .milliseconds(100)))
    }
    // The head arrives at once; the 200 bytes read of the body would take 10 s at this drip,
    // while the deadline allows timeout + 200 bytes at 1 KiB/s (about 4.2 s).
    let outcome = try await Self.fetch(
      origin: origin, timeout: 4, minimumBytesPerSecond: 1024)
    let error = try #require(outcome)
    #expect(error.kind == .timedOut, "\(error)")
    #expect(error.message.contains("overall deadline"), "\(error.message)")
  }

  /// A chain of redirects whose heads each arrive inside `timeout` (0.6 s of 1.5 s) cannot add up
  /// past the overall deadline (1.5 s plus 2 bytes at 1 KiB/s; the chain would take 3 s).
  @Test func slowRedirectChainHitsTheOverallDeadline() async throws {
    let origin = try await LoopbackOrigin.start()
    defer { Task { try? await origin.shutdown() } }
    for hop in 0..<5 {
      await origin.setHandler("/hop\(hop)") { _ in
        OriginResponse(
          status: 302, headers: [OriginHeader("Location", "/hop\(hop + 1)")],
          delayBeforeHead: .milliseconds(600))
      }
    }
    await origin.setResource("/hop5", body: Data("{}".utf8), contentType: "application/json")
    let fetcher = HTTPFetcher(minimumBytesPerSecond: 1024)
    defer { Task { try? await fetcher.shutdown() } }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let sink = try makeSink(in: dir.url, maxBytes: 1024, expectedSize: 2)
    let request = FetchRequest(
      url: URL(string: "\(origin.baseURL)/hop0")!, maxBytes: 1024, expectedSize: 2,
      timeout: 1.5)
    await #expect {
      _ = try await fetcher.fetch(request, into: sink)
    } throws: { error in
      guard let e = error as? FetchError else { return false }
      return e.kind == .timedOut && e.message.contains("overall deadline")
    }
  }

  /// Fetches /a.json and returns the failure, if any.
  static func fetch(origin: LoopbackOrigin, timeout: TimeInterval, minimumBytesPerSecond: Int64)
    async throws -> FetchError?
  {
    let fetcher = HTTPFetcher(minimumBytesPerSecond: minimumBytesPerSecond)
    defer { Task { try? await fetcher.shutdown() } }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let sink = try makeSink(in: dir.url, maxBytes: 1 << 20, expectedSize: nil)
    do {
      _ = try await fetcher.fetch(
        FetchRequest(url: URL(string: "\(origin.baseURL)/a.json")!, timeout: timeout),
        into: sink)
      return nil
    } catch let error as FetchError {
      return error
    }
  }
}
