import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// Which of a body and its time limit came first.
enum Race<T: Sendable>: Sendable {
  case finished(T)
  case timedOut
}

/// What `body` returns, or nil when it has not returned within `seconds`; then `onTimeout` runs
/// (it must make `body` return: the race waits for it), and the miss is recorded as an issue.
func finishing<T: Sendable>(
  within seconds: Int, onTimeout: @Sendable () async -> Void,
  _ body: @escaping @Sendable () async -> T
) async -> T? {
  return await withTaskGroup(of: Race<T>.self) { group in
    group.addTask { .finished(await body()) }
    group.addTask {
      try? await Task.sleep(for: .seconds(seconds))
      return .timedOut
    }
    let first = await group.next()
    group.cancelAll()
    guard case .finished(let value)? = first else {
      Issue.record("did not finish within \(seconds) s")
      await onTimeout()
      return nil
    }
    return value
  }
}

/// A body the fetcher does not use (a redirect's, an error's) is read for a short time at most:
/// no watchdog times it, so a server dripping it must not hold a refresh past its timeout.
///
/// Each test checks what its name says: done within the request's timeout. The timeout is 10 s,
/// so the unused body's share (a quarter, at most 1 s) leaves a margin for a loaded machine:
/// both took 1.01-1.09 s on the 2-core development machine at a load average of 4.6-7.4 (other
/// builds, and HostileOriginTests in the same run), and one range case took more than 4 s at a
/// load average of 5.5 with a whole suite and a clean build running beside it. A body read whole
/// would take 5,000 s (redirect) or 500 s (range); one read for twice the timeout fails too.
@Suite struct UnusedBodyDeadlineTests {
  /// The requests' timeout, in seconds.
  static let timeout = 10

  /// A 302 whose chunked body trickles a byte every half second: the redirect is followed after
  /// at most a quarter of the timeout spent on its body, within the timeout.
  @Test func aRedirectWithADrippingBodyIsFollowedWithinTheTimeout() async throws {
    try await HostileOriginTests.Fixture.with(timeout: TimeInterval(Self.timeout)) { f in
      await f.origin.setResource(
        "/moved.json", body: HostileOriginTests.newBody, contentType: "application/json")
      await f.origin.setHandler("/a.json") { _ in
        OriginResponse(
          status: 302, headers: [OriginHeader("Location", "/moved.json")],
          body: .generated(GeneratedBytes(length: 10_000, seed: 3)),
          framing: .chunked(chunkSize: 1), pacing: .drip(bytes: 1, every: .milliseconds(500)))
      }
      let engine = f.engine
      let outcome = await finishing(within: Self.timeout, onTimeout: { await engine.shutdown() }) {
        await engine.refresh("a")
      }
      let done = try #require(outcome)
      #expect(done.isUpdated, "\(done)")
      #expect(try await engine.data("a") == HostileOriginTests.newBody)
      #expect(await f.origin.requestCount(path: "/moved.json") == 1)
    }
  }

  /// A range request answered with a dripped error body (the range's own deadline allows for
  /// its length, minutes here) fails as that error within the timeout.
  @Test func aRangeErrorWithADrippingBodyFailsWithinTheTimeout() async throws {
    try await withOrigin { origin in
      await origin.setHandler("/a.bin") { _ in
        OriginResponse(
          status: 500, body: .text(String(repeating: "slow ", count: 200)),
          framing: .chunked(chunkSize: 1), pacing: .drip(bytes: 1, every: .milliseconds(500)))
      }
      let fetcher = HTTPFetcher()
      let request = FetchRequest(
        url: URL(string: "\(origin.baseURL)/a.bin")!, timeout: TimeInterval(Self.timeout))
      let result = await finishing(within: Self.timeout, onTimeout: {}) {
        () async -> Result<RangeAnswer, FetchError> in
        do throws(FetchError) {
          return .success(
            try await fetcher.fetchRange(request, range: 0..<(1 << 20), total: 4 << 20))
        } catch {
          return .failure(error)
        }
      }
      try? await fetcher.shutdown()
      guard case .failure(let error)? = result else {
        Issue.record("expected a failure, got \(String(describing: result))")
        return
      }
      #expect(error.status == 500, "\(error)")
    }
  }
}
