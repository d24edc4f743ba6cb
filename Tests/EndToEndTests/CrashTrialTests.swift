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
      let versions = Served()
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
          versions.record(content)
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
        // What the checks below saw: a build that never commits (or never gets killed) would
        // pass them vacuously, so the run counts both.
        var served = [String: String]()
        var committed = 0
        var killed = 0
        for trial in 0..<Self.trials {
          // Every third trial, two processes refresh the same cache at once.
          let count = trial % 3 == 2 ? 2 : 1
          let requestsBefore = counter.withLock { $0 }
          let children = try (0..<count).map { _ in
            let child = AssetWatchBinary.makeProcess(["refresh"], cwd: dir.url)
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            return child
          }
          // The kill lands at a random moment counted from the first request (a loaded machine
          // starts the binary slowly: counted from the spawn, the kill came before any refresh
          // could commit), from mid-download (70-290 ms at this rate) to after the commit.
          let deadline = Date().addingTimeInterval(30)
          while counter.withLock({ $0 }) == requestsBefore, Date() < deadline {
            try await Task.sleep(for: .milliseconds(5))
          }
          try await Task.sleep(for: .milliseconds(Int.random(in: 0...400, using: &generator)))
          for child in children {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
          }
          // A child that had exited already was not cut by the signal.
          if children.contains(where: { $0.terminationReason == .uncaughtSignal }) { killed += 1 }
          let now = try await checkServedCopies(dir: dir, served: versions, trial: trial)
          // Every request is a new version: a copy that changed is one this trial committed.
          if now.contains(where: { served[$0.key] != $0.value }) { committed += 1 }
          served = now
        }
        print(
          "crash trials: \(Self.trials), committed in \(committed), killed mid-way in \(killed)")
        #expect(committed > 0, "no trial committed a copy: nothing above checked a served one")
        #expect(killed > 0, "no trial killed a refresh still running")
      }
    }
  }

  /// Starts a fresh process on the cache and checks what it would serve; returns the cached
  /// copies' hashes by asset id.
  func checkServedCopies(dir: TemporaryDirectory, served: Served, trial: Int) async throws
    -> [String: String]
  {
    var cached: [String: String] = [:]
    let status = try await AssetWatchBinary.run(["status", "--json"], cwd: dir.url)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any],
      "trial \(trial): \(status.stderr)")
    let assets = try #require(json["assets"] as? [[String: Any]])
    for asset in assets where asset["source"] as? String == "cached" {
      let sha = try #require(asset["sha256"] as? String)
      cached[asset["id"] as? String ?? ""] = sha
      let path = try #require(asset["path"] as? String)
      let known = served.versions.withLock { $0[sha] }
      #expect(known != nil, "trial \(trial): serves a version the origin never sent")
      let sum = try await ProcessRunner.runTool("sha256sum", [path])
      #expect(sum.stdout.hasPrefix(sha), "trial \(trial): \(path) does not hash to its entry")
      let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
      #expect(size == known, "trial \(trial): a torn blob")
    }
    return cached
  }
}
