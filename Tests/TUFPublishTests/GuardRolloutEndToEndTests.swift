import AssetWatchTestKit
import Crypto
import Foundation
import Synchronization
import Testing

@testable import TUFPublish

#if canImport(Glibc)
  import Glibc
#endif

/// `publish guard` with the real parts: four `assetwatch serve --metrics` engines with their
/// own instance ids and control sockets follow a repository `publish` made, served by nginx
/// (the guard's `--upload` copies the folder there), scraped every second by a real
/// Prometheus. A healthy rollout reaches 100 %, also when the guard is killed (SIGKILL) in the
/// middle of a soak and run again; an unhealthy one, where a health-check loop rejects the new
/// version wherever it lands, halts and every engine goes back to `from`.
@Suite(
  .serialized,
  .enabled(
    if: ExternalTool.shouldRun("prometheus") && ExternalTool.shouldRun("nginx"),
    "needs prometheus and nginx; skipped, not passed"))
struct GuardRolloutEndToEndTests {
  static let selector = #"{job="assets"}"#

  /// The engine's cohort position (RemoteAssets' `Cohort.position`, restated so the test picks
  /// instance ids on each side of a step; the guard's own counts cross-check it).
  static func position(_ instance: String, version: String = "2") -> Double {
    var hasher = SHA256()
    for part in ["assetwatch-rollout", instance, "flags", version] {
      hasher.update(data: Data(part.utf8))
      hasher.update(data: Data([0]))
    }
    var value: UInt64 = 0
    for byte in hasher.finalize().prefix(8) { value = value << 8 | UInt64(byte) }
    return min(Double(value) / 18_446_744_073_709_551_616.0 * 100, 99.999_999_999)
  }

  /// Instance ids `prefix-N`, the first `count` whose position lies in `range`.
  static func ids(_ prefix: String, _ count: Int, in range: Range<Double>) -> [String] {
    var out: [String] = []
    var n = 0
    while out.count < count {
      let id = "\(prefix)-\(n)"
      if range.contains(position(id)) { out.append(id) }
      n += 1
    }
    return out
  }

  /// One engine: its id, the scrape target, its folder.
  struct Engine: Sendable {
    var id: String
    var target: String
    var folder: URL
  }

  /// The fleet's parts.
  struct Fleet: Sendable {
    var repo: String
    var keys: String
    var upload: String
    var engines: [Engine]
    var prometheus: PrometheusServer
  }

  /// Copies the repository folder into nginx's (what `--upload` does in the guard), in process.
  static func copyRepository(_ repo: String, to nginx: NginxServer) throws {
    let base = URL(fileURLWithPath: repo)
    guard let walker = FileManager.default.enumerator(atPath: repo) else { return }
    while let name = walker.nextObject() as? String {
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: repo + "/" + name, isDirectory: &isFolder),
        !isFolder.boolValue
      else { continue }
      try nginx.put(name, try Data(contentsOf: base.appendingPathComponent(name)))
    }
  }

  /// A repository with flags 1 fully out, served by nginx, `ids` engines serving it, scraped by
  /// Prometheus; then 2 staged at `percent` and uploaded; `body` runs with it all.
  static func withFleet<T>(
    ids: [String], percent: Int, confirmAfter: String,
    _ body: (Fleet) async throws -> T
  ) async throws -> T {
    try await withTemporaryDirectory { dir in
      let (repo, keys) = try await PublishFixtures.initWithBinary(in: dir)
      let v1 = try dir.file("flags-1.json", #"{"v":1}"#)
      let v2 = try dir.file("flags-2.json", #"{"v":2}"#)
      var result = try await PublishCommandTests.run([
        "add", "--repo", repo, "--keys-dir", keys, "flags", v1.path, "--version", "1",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      return try await withNginx { nginx in
        let upload =
          #"cp -R "$ASSETWATCH_REPO"/. '\#(nginx.www.path)'/ && chmod -R a+rX '\#(nginx.www.path)'"#
        try copyRepository(repo, to: nginx)
        return try await withEngines(
          ids, repo: repo, base: nginx.baseURL, confirmAfter: confirmAfter, dir: dir
        ) {
          engines in
          try await withPrometheus(targets: engines.map(\.target)) { prometheus in
            try await prometheus.waitUntil(
              #"remote_assets_asset_info{job="assets",asset="flags",version="1"}"#
            ) { $0.count == ids.count }
            try await prometheus.waitUntil(#"remote_assets_instance_info{job="assets"}"#) {
              $0.count == ids.count
            }
            // 1 confirmed everywhere (probation over): a rejection of 2 has 1 to go back to.
            try await prometheus.waitUntil(
              #"remote_assets_asset_on_probation{job="assets",asset="flags"} == 0"#
            ) { $0.count == ids.count }
            result = try await PublishCommandTests.run([
              "update", "--repo", repo, "--keys-dir", keys, "flags", v2.path, "--version", "2",
              "--rollout", "\(percent)",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            try copyRepository(repo, to: nginx)
            return try await body(
              Fleet(
                repo: repo, keys: keys, upload: upload, engines: engines, prometheus: prometheus))
          }
        }
      }
    }
  }

  /// Starts one `serve --metrics` engine per id (each its own folder, cache, control socket),
  /// following the repository served at `base`.
  static func withEngines<T>(
    _ ids: [String], repo: String, base: String, confirmAfter: String, dir: TemporaryDirectory,
    running: [Engine] = [], _ body: ([Engine]) async throws -> T
  ) async throws -> T {
    guard let id = ids.first else { return try await body(running) }
    let folder = dir.url.appendingPathComponent(id)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: repo + "/metadata/1.root.json", toPath: folder.path + "/root.json")
    let config = """
      { "appVersion": "1", "cacheDirectory": "cache", "instance": "\(id)",
        "tuf": { "metadataURL": "\(base)/metadata/", "targetsURL": "\(base)/targets/",
                 "root": "root.json" },
        "probation": { "confirmAfter": "\(confirmAfter)", "crashes": 2 },
        "defaults": { "refreshEvery": "1s", "ttl": "1m", "timeout": "5s" },
        "assets": [ { "id": "flags", "format": "json" } ] }
      """
    try Data(config.utf8).write(to: folder.appendingPathComponent("assets.json"))
    let port = freeLoopbackPort()
    return try await AssetWatchBinary.withRunning(
      ["serve", "--config", "assets.json", "--metrics", "127.0.0.1:\(port)"], cwd: folder
    ) { _ in
      try await withEngines(
        Array(ids.dropFirst()), repo: repo, base: base, confirmAfter: confirmAfter, dir: dir,
        running: running + [Engine(id: id, target: "127.0.0.1:\(port)", folder: folder)], body)
    }
  }

  static func guardArguments(_ fleet: Fleet, _ more: [String]) -> [String] {
    [
      "publish", "guard", "flags", "--repo", fleet.repo, "--keys-dir", fleet.keys,
      "--prometheus", fleet.prometheus.baseURL, "--selector", selector, "--upload", fleet.upload,
      "--interval", "1", "--json",
    ] + more
  }

  static func lines(_ output: String) -> [[String: Any]] {
    output.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
  }

  @Test func aHealthyRolloutReachesAllAlsoWhenTheGuardIsKilledMidSoak() async throws {
    // One instance in the 34 % step, one in the 34-67 % band (the control), two above.
    let ids =
      Self.ids("ok", 1, in: 0..<34) + Self.ids("ok", 1, in: 34..<67)
      + Self.ids("ok", 2, in: 67..<100)
    try await Self.withFleet(ids: ids, percent: 34, confirmAfter: "2s") { fleet in
      let arguments = Self.guardArguments(
        fleet, ["--steps", "34,67,100", "--soak", "4s", "--hold-deadline", "3m"])
      let first = try RunningProcess(AssetWatchBinary.makeProcess(arguments))
      // Killed in the middle of the first soak: the step is healthy, converged, not widened.
      let soaking = await first.waitForOutput(containing: #""soaking":true"#, timeout: 120)
      kill(first.processIdentifier, SIGKILL)
      _ = await first.exit(within: 10)
      #expect(soaking, "\(first.output)")
      let midway = try #require(try Repository.load(folder: fleet.repo).guardedTarget("flags"))
      #expect(midway.percent == 34, "\(first.output)")
      #expect(midway.evidence?.verdict == "start")
      let decision = Self.lines(first.output).last { $0["event"] as? String == "decision" }
      #expect((decision?["canary"] as? [String: Any])?["instances"] as? Int == 1, "\(first.output)")

      // Run again: it continues at 34 % from the signed target, then widens to 67 and 100.
      let second = try await AssetWatchBinary.run(arguments, timeout: 240)
      #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
      let plan = Self.lines(second.stdout).first
      #expect(
        (plan?["start"] as? String)?.hasPrefix("continues the guarded rollout at 34 %") == true)
      let signed = Self.lines(second.stdout).filter { $0["event"] as? String == "signed" }
      #expect(signed.compactMap { $0["step"] as? Int } == [67, 100], "\(second.stdout)")
      let done = try #require(try Repository.load(folder: fleet.repo).guardedTarget("flags"))
      #expect(done.percent == 100)
      #expect(done.evidence?.verdict == "advance" && done.evidence?.step == 100)
      // Every engine takes 2.
      try await fleet.prometheus.waitUntil(
        #"remote_assets_asset_info{job="assets",asset="flags",version="2"}"#
      ) { $0.count == ids.count }
    }
  }

  @Test func anUnhealthyRolloutHaltsAndEveryEngineGoesBackToFrom() async throws {
    // Two instances in the 50 % step, two in the control band.
    let ids = Self.ids("bad", 2, in: 0..<50) + Self.ids("bad", 2, in: 50..<100)
    try await Self.withFleet(ids: ids, percent: 50, confirmAfter: "3s") { fleet in
      // The health check: wherever 2 lands, reject it (through the engine's control socket).
      let byTarget = Dictionary(uniqueKeysWithValues: fleet.engines.map { ($0.target, $0) })
      let firstRejection = Mutex<Date?>(nil)
      let prometheus = fleet.prometheus
      let healthCheck = Task {
        var rejected = Set<String>()
        while !Task.isCancelled {
          let serving =
            (try? await prometheus.vector(
              #"remote_assets_asset_info{job="assets",asset="flags",version="2"}"#)) ?? []
          for series in serving {
            guard let target = series.labels["instance"], let engine = byTarget[target],
              !rejected.contains(target)
            else { continue }
            let result = try? await AssetWatchBinary.run(
              [
                "reject", "flags", "--reason", "health check failed", "--attach",
                engine.folder.appendingPathComponent("assets.json").path,
              ], cwd: engine.folder)
            if result?.status == 0 {
              rejected.insert(target)
              firstRejection.withLock { $0 = $0 ?? Date() }
            }
          }
          try? await Task.sleep(for: .milliseconds(200))
        }
      }
      defer { healthCheck.cancel() }
      let guardRun = try RunningProcess(
        AssetWatchBinary.makeProcess(
          Self.guardArguments(
            fleet, ["--steps", "50,100", "--soak", "1m", "--hold-deadline", "5m"])))
      let halted = await guardRun.waitForOutput(containing: #""step":0,"#, timeout: 180)
      let haltSeen = Date()
      let exit = await guardRun.exit(within: 30)
      #expect(halted, "\(guardRun.output)")
      #expect(exit == .exited(3), "\(guardRun.output)")
      let target = try #require(try Repository.load(folder: fleet.repo).guardedTarget("flags"))
      #expect(target.percent == 0)
      let reason = target.evidence?.reason ?? ""
      #expect(reason.hasPrefix("canary: "), "\(reason)")
      #expect(
        reason.contains(#"of 2 instances rejected 2 ("health check failed"); control 0 of 2"#),
        "\(reason)")
      // Every engine goes back to from (1); nothing serves 2.
      try await fleet.prometheus.waitUntil(
        #"remote_assets_asset_info{job="assets",asset="flags",version="1"}"#
      ) { $0.count == ids.count }
      try await fleet.prometheus.waitUntil(
        #"remote_assets_asset_held_back{job="assets",asset="flags"} == 1"#
      ) { $0.count == ids.count }
      // The fleet view shows the guard's latest decision for the asset.
      let fleetJSON = try await AssetWatchBinary.run([
        "fleet", "--json", "--prometheus", fleet.prometheus.baseURL, "--selector", Self.selector,
        "--repo", fleet.repo,
      ])
      #expect(fleetJSON.status == 0, "\(fleetJSON.stderr)")
      let fleetRoot =
        try JSONSerialization.jsonObject(with: Data(fleetJSON.stdout.utf8)) as? [String: Any]
      let rollout = (fleetRoot?["rollouts"] as? [[String: Any]])?.first
      let note = rollout?["guard"] as? [String: Any]
      #expect(note?["verdict"] as? String == "halt", "\(fleetJSON.stdout)")
      #expect(note?["step"] as? Int == 0)
      #expect((note?["reason"] as? String)?.hasPrefix("canary: ") == true)
      // The benchmark's measurement (scripts/guard-halt-bench): first rejection to halt seen.
      if let out = ProcessInfo.processInfo.environment["ASSETWATCH_GUARD_BENCH_OUT"],
        let start = firstRejection.withLock({ $0 })
      {
        let line = String(format: "%.3f\n", haltSeen.timeIntervalSince(start))
        if let handle = FileHandle(forWritingAtPath: out) {
          handle.seekToEndOfFile()
          handle.write(Data(line.utf8))
          try? handle.close()
        } else {
          FileManager.default.createFile(atPath: out, contents: Data(line.utf8))
        }
      }
    }
  }
}
