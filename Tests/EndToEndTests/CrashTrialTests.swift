import AssetWatchTestKit
import DemoOrigin
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// SIGKILL at random moments of refreshes (mid-download, mid-commit, two processes on one
/// cache): afterwards every served copy is one the origin sent, whole, and matches its hash.
///
/// `CRASH_TRIALS` sets the number of trials (default 16 per run).
@Suite struct CrashTrialTests {
  static var trials: Int {
    Int(ProcessInfo.processInfo.environment["CRASH_TRIALS"] ?? "") ?? 16
  }

  /// Every version the origin served, by SHA-256.
  final class Served: Sendable {
    let versions = Mutex<[String: Int]>([:])
    func record(_ content: GeneratedBytes) {
      versions.withLock { $0[content.sha256Hex()] = content.length }
    }
  }

  @Test func killedRefreshesNeverLeaveABrokenServedCopy() async throws {
    try await withOrigin { origin in
      let served = Served()
      let counter = Mutex<UInt64>(0)
      // Each request gets a new version of a different length, streamed fast enough to finish
      // sometimes and slowly enough to be cut other times.
      for name in ["a", "b"] {
        await origin.setHandler("/\(name).bin") { _ in
          let n = counter.withLock {
            $0 += 1
            return $0
          }
          let content = GeneratedBytes(length: 300_000 + Int(n % 7) * 150_000, seed: n)
          served.record(content)
          return OriginResponse(
            headers: [OriginHeader("ETag", "\"v\(n)\"")], body: .generated(content),
            pacing: .rateLimit(bytesPerSecond: 4 << 20))
        }
      }
      try await withTemporaryDirectory { dir in
        try dir.file(
          "assets.json",
          """
          { "appVersion": "1", "cacheDirectory": "cache",
            "assets": [
              { "id": "a", "remote": "\(origin.baseURL)/a.bin", "format": "binary", "timeout": "30s" },
              { "id": "b", "remote": "\(origin.baseURL)/b.bin", "format": "binary", "timeout": "30s" }
            ] }
          """)
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<Self.trials {
          // Every third trial, two processes refresh the same cache at once.
          let count = trial % 3 == 2 ? 2 : 1
          let children = try (0..<count).map { _ in
            let child = AssetWatchBinary.makeProcess(["refresh"], cwd: dir.url)
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            return child
          }
          try await Task.sleep(for: .milliseconds(Int.random(in: 20...400, using: &generator)))
          for child in children {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
          }
          try await checkServedCopies(dir: dir, served: served, trial: trial)
        }
      }
    }
  }

  /// Starts a fresh process on the cache and checks what it would serve.
  func checkServedCopies(dir: TemporaryDirectory, served: Served, trial: Int) async throws {
    let status = try await AssetWatchBinary.run(["status", "--json"], cwd: dir.url)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any],
      "trial \(trial): \(status.stderr)")
    let assets = try #require(json["assets"] as? [[String: Any]])
    for asset in assets where asset["source"] as? String == "cached" {
      let sha = try #require(asset["sha256"] as? String)
      let path = try #require(asset["path"] as? String)
      let known = served.versions.withLock { $0[sha] }
      #expect(known != nil, "trial \(trial): serves a version the origin never sent")
      let sum = try await ProcessRunner.runTool("sha256sum", [path])
      #expect(sum.stdout.hasPrefix(sha), "trial \(trial): \(path) does not hash to its entry")
      let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
      #expect(size == known, "trial \(trial): a torn blob")
    }
  }
}
