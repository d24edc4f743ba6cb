import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// Failures are remembered and cost little: every failure kind backs off from the asset's
/// interval, a response rejected by validation is asked about again by its validators (an
/// unchanged bad file costs a 304, not a download), and the last error of an asset that was never
/// fetched survives to the next process, whatever failed, a full disk included.
@Suite struct FailureMemoryTests {
  static let broken = Data("{broken".utf8)

  func asset(_ origin: LoopbackOrigin, every seconds: TimeInterval = 60) -> AssetDefinition {
    AssetDefinition(
      id: "a", remote: URL(string: "\(origin.baseURL)/a.json"), format: .json,
      refresh: .every(seconds), timeout: 30)
  }

  @Test func backoffFromTheIntervalDoublesWithJitterUpToTheCap() {
    let policy = Backoff()
    #expect(policy.delay(every: 60, failures: 1, random: 0) == 60)
    #expect(policy.delay(every: 60, failures: 1, random: 1) == 120)
    #expect(policy.delay(every: 60, failures: 3, random: 1) == 480)
    #expect(policy.delay(every: 60, failures: 5, random: 1) == 900, "15 min cap")
    #expect(policy.delay(every: 3600, failures: 9, random: 1) == 3600, "the interval if larger")
    #expect(policy.delay(every: 1, failures: Int.max, random: 1) == 900)
    for hostile in [Double.nan, .infinity, -5] {
      let delay = policy.delay(every: hostile, failures: 3, random: hostile)
      #expect(delay.isFinite && delay >= 0)
    }
  }

  /// A 404 (not retryable) used to be fetched again at every interval; now each failure waits
  /// longer than the interval, within the doubled window.
  @Test func aNotFoundAssetBacksOffFromItsInterval() async throws {
    try await withOrigin { origin in
      let interval: TimeInterval = 1
      try await withEngine([asset(origin, every: interval)]) { engine, _ throws in
        for failures in 1...5 {
          let outcome = await engine.refresh("a")
          #expect(outcome.failure?.kind == .httpStatus, "\(outcome)")
          let status = try #require(await engine.status("a"))
          let at = try #require(status.lastError?.at)
          let next = try #require(status.nextAttemptAt)
          let delay = next.timeIntervalSince(at)
          #expect(status.consecutiveFailures == failures)
          #expect(delay > interval, "failure \(failures): \(delay) s")
          #expect(delay <= interval * pow(2, Double(failures)) + 0.001, "failure \(failures)")
        }
      }
    }
  }

  /// A body that fails validation is remembered by its validators, across processes: the next
  /// check asks with them and gets a 304 instead of the body; the failure and the good copy stay.
  @Test func anUnchangedBadFileCostsA304NotADownload() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await origin.setResource("/a.json", body: Data(#"{"ok":1}"#.utf8), contentType: "text/json")
        let cache = dir.url("cache")
        try await withEngine([asset(origin)], cache: cache) { engine throws in
          #expect(await engine.refresh("a").isUpdated)
          await origin.setResource("/a.json", body: Self.broken, contentType: "application/json")
          #expect(await engine.refresh("a").failure?.kind == .invalid)
        }
        let badETag = try #require(await origin.resource(at: "/a.json")?.etag)
        // A new engine (another process) on the same cache.
        try await withEngine([asset(origin)], cache: cache) { engine throws in
          let outcome = await engine.refresh("a")
          #expect(outcome.failure?.kind == .invalid, "still the bad version: \(outcome)")
          let last = try #require(await origin.requests(path: "/a.json").last)
          // The static resource answers a matching If-None-Match with 304 and no body.
          #expect(last.header("If-None-Match") == badETag, "asked by the rejected validators")
          let data = try await engine.data("a")
          #expect(data == Data(#"{"ok":1}"#.utf8))
          #expect(await engine.status("a")?.consecutiveFailures == 2)
        }
      }
    }
  }

  /// An asset never fetched: a refused connection or a body that fails validation is what the
  /// next process shows, not a bare MISSING.
  @Test func aNeverFetchedAssetsFailureIsKeptForTheNextProcess() async throws {
    try await withTemporaryDirectory { dir in
      let cache = dir.url("cache")
      // Port 9 (discard): nothing listens there on these machines.
      let refused = AssetDefinition(
        id: "a", remote: URL(string: "http://127.0.0.1:9/a.json"), format: .json,
        refresh: .every(60),
        timeout: 30)
      try await withEngine([refused], cache: cache) { engine in
        #expect(await engine.refresh("a").failure?.kind == .refused)
      }
      try await withEngine([refused], cache: cache) { engine in
        let status = await engine.status("a")
        #expect(status?.source == AssetSource.none)
        #expect(status?.lastError?.kind == .refused)
      }
      try await withOrigin { origin in
        await origin.setResource("/a.json", body: Self.broken, contentType: "application/json")
        let invalid = asset(origin)
        try await withEngine([invalid], cache: cache) { engine in
          #expect(await engine.refresh("a").failure?.kind == .invalid)
        }
        try await withEngine([invalid], cache: cache) { engine in
          #expect(await engine.status("a")?.lastError?.kind == .invalid)
        }
      }
    }
  }

  /// A full disk: the download of a never-fetched asset fails, and the next process still sees
  /// why (its partial file is removed before the failure is written, so the entry fits).
  @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root (CI runs as root)"))
  func aFullDiskFailureIsRememberedForTheNextProcess() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        let mountPoint = dir.url("small")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let mounted = try await ProcessRunner.runTool(
          "mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint.path])
        #expect(mounted.status == 0, "mount: \(mounted.stderr)")
        guard mounted.status == 0 else { return }
        defer { _ = umount2(mountPoint.path, Int32(MNT_DETACH)) }
        await origin.setGeneratedResource(
          "/a.json", content: GeneratedBytes(length: 8 << 20, seed: 7))
        let cache = mountPoint.appendingPathComponent("cache")
        var definition = asset(origin)
        definition.format = .binary
        try await withEngine([definition], cache: cache) { engine throws in
          let outcome = await engine.refresh("a")
          #expect(outcome.failure?.kind == .storage, "\(outcome)")
        }
        try await withEngine([definition], cache: cache) { engine throws in
          let status = try #require(await engine.status("a"))
          #expect(status.source == .none)
          #expect(status.lastError?.kind == .storage, "\(String(describing: status.lastError))")
          #expect(status.lastError?.message.contains("No space left") == true)
        }
      }
    }
  }
}
