import AssetModel
import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// The crash-loop guard's view of the run that served a version on probation before this one:
/// a run that ended without a clean shutdown counts a crash even when this process has its PID
/// (a container's PID 1 after every restart) or another live process got its PID since.
@Suite struct ProbationRestartTests {
  typealias S = StagedRolloutTests

  /// Makes the ledger say that an earlier run, process `pid`, served `flags` on probation and
  /// never shut down cleanly. The file is edited as JSON, the way another AssetWatch wrote it:
  /// without `token` (and `startTicks`) as a version before run tokens wrote it.
  static func recordEarlierRun(
    cache: URL, pid: Int32, token: String? = nil, startTicks: UInt64? = nil
  ) throws {
    let url = cache.appendingPathComponent("rollouts.json")
    var ledger = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    var assets = try #require(ledger["assets"] as? [String: Any])
    var item = try #require(assets["flags"] as? [String: Any])
    item["runningPID"] = Int(pid)
    item["runningToken"] = token
    item["runningStartTicks"] = startTicks
    assets["flags"] = item
    ledger["assets"] = assets
    let data = try JSONSerialization.data(withJSONObject: ledger, options: [.sortedKeys])
    try data.write(to: url, options: .atomic)
  }

  /// Field 22 of `/proc/<pid>/stat`: when the process started, in clock ticks since boot.
  static func startTicks(_ pid: Int32) throws -> UInt64 {
    let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
    let fields = try #require(text.range(of: ")", options: .backwards)).upperBound
    let rest = text[fields...].split(separator: " ")
    return try #require(UInt64(rest[19]))
  }

  /// v1 confirmed, v2 on probation (not claimed by a running engine yet).
  static func v2OnProbation(_ engine: AssetEngine, _ origin: LoopbackOrigin) async throws {
    #expect(await engine.refresh("flags").isUpdated)
    try await engine.confirm("flags")
    await S.publish(origin, target: S.v2, version: "v2", rollout: nil)
    #expect(await engine.refresh("flags").isUpdated)
    #expect(await engine.status("flags")?.probation?.version == "v2")
  }

  /// An engine with probation on over a fresh cache: v1 confirmed, v2 on probation.
  static func withV2OnProbation(
    _ body: (AssetEngine, TemporaryDirectory) async throws -> Void
  ) async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        await S.publish(origin, target: S.v1, version: "v1", rollout: nil)
        try await ProbationTests.withProbationEngine(origin: origin, cache: dir.cache) { engine in
          try await v2OnProbation(engine, origin)
          try await body(engine, dir)
        }
      }
    }
  }

  @Test func anEarlierRunWithThisProcesssPIDThatDiedCountsACrash() async throws {
    try await Self.withV2OnProbation { engine, dir in
      // A run of an older version (no token) had this PID: it is gone, whatever the PID says.
      try Self.recordEarlierRun(cache: dir.cache, pid: getpid())
      await engine.claimProbations()
      #expect(await engine.status("flags")?.probation?.crashes == 1)
      // This run's own claim is no crash.
      await engine.claimProbations()
      #expect(await engine.status("flags")?.probation?.crashes == 1)
      // A run of this version with this PID (PID 1 in a container, restarted): the second
      // crash rejects v2.
      try Self.recordEarlierRun(cache: dir.cache, pid: getpid(), token: "an-earlier-run")
      await engine.claimProbations()
      let status = try #require(await engine.status("flags"))
      #expect(status.rejected?.version == "v2")
      #expect(status.version == "v1")
      let served1 = try await engine.data("flags")
      #expect(served1 == S.v1)
    }
  }

  @Test func aLiveProcessWithTheRecordedPIDHidesNoCrashUnlessItIsTheSameProcess() async throws {
    try await Self.withV2OnProbation { engine, dir in
      // The parent process is alive: as the run recorded (same start), it still serves v2.
      let parent = getppid()
      let started = try Self.startTicks(parent)
      try Self.recordEarlierRun(
        cache: dir.cache, pid: parent, token: "the-parent", startTicks: started)
      await engine.claimProbations()
      #expect(await engine.status("flags")?.probation?.crashes == 0)
      // The same PID, but a process started at another time: the recorded run is gone and
      // its PID was recycled.
      try Self.recordEarlierRun(
        cache: dir.cache, pid: parent, token: "a-dead-run", startTicks: started + 1)
      await engine.claimProbations()
      #expect(await engine.status("flags")?.probation?.crashes == 1)
    }
  }

  /// Another process holding an exclusive `flock` on `path` (made if missing) until the pipe's
  /// write end is closed, as a run's process holds its lock while it lives.
  static func holdLock(at path: String) async throws -> (RunningProcess, Pipe) {
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    holder.arguments = [
      "-c",
      "import fcntl,sys; f=open(sys.argv[1],'a'); fcntl.flock(f,fcntl.LOCK_EX); "
        + "print('held',flush=True); sys.stdin.read()",
      path,
    ]
    let stdin = Pipe()
    holder.standardInput = stdin
    let running = try RunningProcess(holder)
    #expect(await running.waitForOutput(containing: "held"))
    return (running, stdin)
  }

  /// Another container on the same cache volume: its own PID namespace, so its run has this
  /// process's PID (both PID 1). Its lock, held while it runs, says it still serves v2; once
  /// its process is gone the lock is free and the run counts a crash.
  @Test func aLiveRunWithThisPIDInAnotherNamespaceIsKnownByItsLock() async throws {
    try await Self.withV2OnProbation { engine, dir in
      let token = UUID().uuidString.lowercased()
      let lock = dir.cache.appendingPathComponent("tmp/run-\(token).lock").path
      // The other run: a process holding its lock until its stdin closes.
      let (running, stdin) = try await Self.holdLock(at: lock)
      try Self.recordEarlierRun(cache: dir.cache, pid: getpid(), token: token)
      await engine.claimProbations()
      #expect(await engine.status("flags")?.probation?.crashes == 0, "it still runs")
      // It ends without a clean shutdown (its claim stays in the ledger).
      try stdin.fileHandleForWriting.close()
      #expect(await running.exit(within: 20) == .exited(0))
      try Self.recordEarlierRun(cache: dir.cache, pid: getpid(), token: token)
      await engine.claimProbations()
      #expect(await engine.status("flags")?.probation?.crashes == 1, "its run ended")
      #expect(!FileManager.default.fileExists(atPath: lock), "the free lock is removed")
    }
  }

  /// The sweep removes the locks of runs that ended (free) and keeps those still held, by this
  /// process or another; a name that is not a run lock is not ours and stays.
  @Test func theSweepRemovesOnlyFreeRunLocks() async throws {
    try await withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.cache)
      let ended = UUID().uuidString.lowercased()
      let other = UUID().uuidString.lowercased()
      let mine = UUID().uuidString.lowercased()
      let tmp = dir.cache.appendingPathComponent("tmp")
      func path(_ token: String) -> String { tmp.appendingPathComponent("run-\(token).lock").path }
      #expect(FileManager.default.createFile(atPath: path(ended), contents: nil))
      #expect(
        FileManager.default.createFile(
          atPath: tmp.appendingPathComponent("run-x.lock").path, contents: nil))
      #expect(store.holdRunLock(token: mine))
      let (running, stdin) = try await Self.holdLock(at: path(other))
      _ = try #require(try store.sweepWhenFree(keep: []))
      #expect(!FileManager.default.fileExists(atPath: path(ended)), "its run ended")
      #expect(FileManager.default.fileExists(atPath: path(other)), "held by another process")
      #expect(FileManager.default.fileExists(atPath: path(mine)), "held by this one")
      #expect(FileManager.default.fileExists(atPath: tmp.appendingPathComponent("run-x.lock").path))
      #expect(store.runIsLive(token: other) == true)
      try stdin.fileHandleForWriting.close()
      #expect(await running.exit(within: 20) == .exited(0))
      _ = try #require(try store.sweepWhenFree(keep: []))
      #expect(!FileManager.default.fileExists(atPath: path(other)), "its run ended now")
      #expect(store.runIsLive(token: other) == nil, "no lock left to ask")
    }
  }
}
