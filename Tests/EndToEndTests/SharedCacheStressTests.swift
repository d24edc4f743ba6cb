import AssetWatchTestKit
import DemoOrigin
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Many processes, one cache: the real binary doing `refresh`, `drop`, `reset`, `rollback`,
/// `verify`, `status --json` and `serve` on one cache folder at once, for a bounded time, while
/// the origin changes what it serves and some of the processes are killed with SIGKILL.
///
/// Every command's end is classified: a documented refusal ("no previous generation", "changed
/// meanwhile") is fine; damage reported where there is none ("is missing", "DAMAGED"), a refused
/// folder ("not made by AssetWatch"), a discarded copy, a crash or any other failure is not.
/// Afterwards every blob an entry names exists and hashes to its name, `verify` is clean, and no
/// entry or status ever recorded a copy as corrupt (nothing was ever damaged, so a copy
/// discarded as corrupt is a good copy lost).
///
/// `SHARED_CACHE_SECONDS` sets how long the processes run (default 12; each loop also stops
/// after 40 commands); `SHARED_CACHE_TALLY=1` prints how the commands ended.
@Suite struct SharedCacheStressTests {
  static let ids = ["a", "b", "c"]
  static var seconds: Double {
    Double(ProcessInfo.processInfo.environment["SHARED_CACHE_SECONDS"] ?? "") ?? 12
  }

  /// Words that must never appear in a command's output.
  static let forbidden = [
    "is missing", "not made by AssetWatch", "does not match", "DAMAGED", "discarded cached copy",
    "; using the bundled copy", "; no copy left", "cannot be read", "unreadable",
    "Fatal error", "Segmentation fault", "Backtrace", "is held by",
  ]
  /// Documented refusals: a command that exits 1 saying one of these did its job.
  static let refusals = [
    "there is no previous generation to roll back to",
    "another process changed the cached copy meanwhile",
  ]

  /// Every version the origin may serve, by SHA-256, with its length.
  final class Served: Sendable {
    let versions = Mutex<[String: Int]>([:])
    func record(_ content: GeneratedBytes) {
      versions.withLock { $0[content.sha256Hex()] = content.length }
    }
    func knows(_ sha: String) -> Bool { versions.withLock { $0[sha] != nil } }
  }

  /// How one command ended.
  struct Run: Sendable {
    var arguments: [String]
    var result: ProcessRunner.Result
    /// Ended by the signal the test sent it (then its exit says nothing).
    var signalled: Bool
  }

  @Test func manyProcessesShareOneCacheWithoutFalseDamageOrLostCopies() async throws {
    try await withOrigin { origin in
      let served = Served()
      let requests = Mutex<[String: UInt64]>([:])
      // Four contents per asset, hashed once here (not in the handler, which would hold up the
      // test process's threads at every request).
      let contents = Dictionary(
        uniqueKeysWithValues: Self.ids.enumerated().map { index, id in
          (
            id,
            (0..<4).map {
              GeneratedBytes(length: 200_000 + $0 * 300_000, seed: UInt64(index * 100 + $0))
            }
          )
        })
      for content in contents.values.joined() { served.record(content) }
      for id in Self.ids {
        // A new version at every request, cycling through the four, so the same bytes come
        // back (a blob committed again after it was pushed out) and each download lasts long
        // enough to be killed in the middle now and then.
        let versions = contents[id] ?? []
        await origin.setHandler("/\(id).bin") { _ in
          let n = requests.withLock {
            $0[id, default: 0] += 1
            return Int($0[id, default: 0] % 4)
          }
          return OriginResponse(
            headers: [OriginHeader("ETag", "\"\(id)-\(n)\"")], body: .generated(versions[n]),
            pacing: .rateLimit(bytesPerSecond: 16 << 20))
        }
      }
      try await withTemporaryDirectory { dir in
        let assets = Self.ids.map {
          """
          { "id": "\($0)", "remote": "\(origin.baseURL)/\($0).bin", "format": "binary" }
          """
        }
        try dir.file(
          "assets.json",
          """
          { "appVersion": "1", "cacheDirectory": "cache",
            "defaults": { "refreshEvery": "100ms", "timeout": "20s" },
            "assets": [ \(assets.joined(separator: ",\n")) ] }
          """)
        let deadline = Date().addingTimeInterval(Self.seconds)
        let runs = try await withThrowingTaskGroup(of: [Run].self) { group in
          // One process refreshing everything back to back (a new copy of each asset each
          // time), four doing anything; two of them kill half their commands.
          for worker in 0..<5 {
            group.addTask {
              try await Self.commandLoop(
                dir: dir.url, deadline: deadline, refreshing: worker == 0,
                killing: worker == 0 || worker == 1)
            }
          }
          group.addTask { try await Self.serveLoop(dir: dir.url, deadline: deadline) }
          var all: [Run] = []
          for try await runs in group { all += runs }
          return all
        }
        #expect(runs.count > 15, "too few commands ran to say anything")
        if ProcessInfo.processInfo.environment["SHARED_CACHE_TALLY"] != nil {
          var tally: [String: Int] = [:]
          for run in runs {
            let key =
              "\(run.arguments.first ?? "") \(run.signalled ? "signalled" : "exit \(run.result.status)")"
            tally[key, default: 0] += 1
          }
          print("TALLY \(tally.sorted { $0.key < $1.key }) origin: \(requests.withLock { $0 })")
          for run in runs where run.result.status == 1 {
            print("STDERR \(run.arguments) \(run.result.stderr)")
          }
        }
        for run in runs {
          if let problem = Self.problem(run, served: served) {
            Issue.record(
              "\(run.arguments.joined(separator: " ")): \(problem)\nstdout: \(run.result.stdout)\nstderr: \(run.result.stderr)"
            )
          }
        }
        try await Self.checkAtRest(dir: dir, served: served)
      }
    }
  }

  /// Random commands until the deadline (at most 40), or only `refresh` with `refreshing`; with
  /// `killing`, half of them get SIGKILL at a random moment (the chaos is the point: nothing
  /// waits on it).
  static func commandLoop(dir: URL, deadline: Date, refreshing: Bool, killing: Bool) async throws
    -> [Run]
  {
    var runs: [Run] = []
    while Date() < deadline, runs.count < 40 {
      let id = ids.randomElement()!
      let arguments: [String]
      switch refreshing ? 2 : Int.random(in: 0..<12) {
      case 0, 1: arguments = ["refresh", id]
      case 2: arguments = ["refresh"]
      case 3, 4: arguments = ["drop", id]
      case 5: arguments = ["reset", id]
      case 6, 7: arguments = ["rollback", id]
      case 8, 9: arguments = ["verify"]
      default: arguments = ["status", "--json"]
      }
      let kill = killing && Bool.random()
      runs.append(
        try await run(
          arguments, in: dir, signal: kill ? SIGKILL : nil,
          after: Double.random(in: 0.02...0.4)))
    }
    return runs
  }

  /// `serve` on the same cache (refreshing every asset every 100 ms, so a new copy of each is committed several times a second) until the deadline, each
  /// one ended after a random while by SIGKILL or, now and then, SIGTERM.
  static func serveLoop(dir: URL, deadline: Date) async throws -> [Run] {
    var runs: [Run] = []
    while Date() < deadline, runs.count < 10 {
      runs.append(
        try await run(
          ["serve"], in: dir, signal: Int.random(in: 0..<3) == 0 ? SIGTERM : SIGKILL,
          after: Double.random(in: 3...6)))
    }
    return runs
  }

  /// Runs the binary in `dir`; with `signal`, sends it that signal after `after` seconds unless it
  /// ended first.
  static func run(_ arguments: [String], in dir: URL, signal: Int32?, after: TimeInterval)
    async throws -> Run
  {
    let process = AssetWatchBinary.makeProcess(arguments, cwd: dir)
    if let signal {
      DispatchQueue.global().asyncAfter(deadline: .now() + after) {
        if process.isRunning { kill(process.processIdentifier, signal) }
      }
    }
    let result = try await ProcessRunner.run(process, timeout: 90)
    return Run(
      arguments: arguments, result: result, signalled: signal != nil && result.status == signal)
  }

  /// What is wrong with how a command ended, or nil.
  static func problem(_ run: Run, served: Served) -> String? {
    let output = run.result.stdout + run.result.stderr
    if let word = forbidden.first(where: output.contains) { return "said '\(word)'" }
    if run.arguments.first == "status", !run.signalled {
      guard run.result.status == 0 else { return "exit \(run.result.status)" }
      guard
        let json = try? JSONSerialization.jsonObject(with: Data(run.result.stdout.utf8))
          as? [String: Any],
        let assets = json["assets"] as? [[String: Any]]
      else { return "status --json did not parse" }
      for asset in assets {
        if let error = asset["lastError"] as? [String: Any], error["kind"] as? String == "corrupt" {
          return "a copy was discarded as corrupt: \(error["message"] ?? "")"
        }
        if asset["source"] as? String == "cached" {
          guard let sha = asset["sha256"] as? String, served.knows(sha) else {
            return "serves a version the origin never sent"
          }
        }
      }
    }
    if run.signalled || run.result.status == 0 { return nil }
    if run.result.status == 1, refusals.contains(where: run.result.stderr.contains) { return nil }
    return "exit \(run.result.status)"
  }

  /// With every process gone: each blob an entry names exists and hashes to its name, no entry
  /// records a discarded copy, `verify` finds nothing, and `status` serves only sent versions.
  static func checkAtRest(dir: TemporaryDirectory, served: Served) async throws {
    let cache = dir.url.appendingPathComponent("cache")
    let entries = try FileManager.default.contentsOfDirectory(
      atPath: cache.appendingPathComponent("entries").path
    ).filter { $0.hasSuffix(".json") }
    var named: Set<String> = []
    for name in entries {
      let data = try Data(contentsOf: cache.appendingPathComponent("entries/\(name)"))
      let entry = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      for key in ["current", "previous"] {
        if let generation = entry[key] as? [String: Any], let sha = generation["sha256"] as? String
        {
          named.insert(sha)
          #expect(served.knows(sha), "\(name) \(key) names a version the origin never sent")
        }
      }
      if let error = entry["lastError"] as? [String: Any] {
        #expect(error["kind"] as? String != "corrupt", "\(name): a copy was discarded: \(error)")
      }
    }
    for sha in named.sorted() {
      let path = cache.appendingPathComponent("objects/\(sha)").path
      #expect(
        FileManager.default.fileExists(atPath: path), "the blob \(sha) an entry names is gone")
      let sum = try await ProcessRunner.runTool("sha256sum", [path])
      #expect(sum.stdout.hasPrefix(sha), "\(path) does not hash to its name")
    }
    let verify = try await AssetWatchBinary.run(["verify"], cwd: dir.url)
    #expect(verify.status == 0, "verify at rest: \(verify.stdout) \(verify.stderr)")
    #expect(!verify.stdout.contains("DAMAGED"), "\(verify.stdout)")
    let status = try await run(["status", "--json"], in: dir.url, signal: nil, after: 0)
    #expect(problem(status, served: served) == nil, "status at rest: \(status.result.stdout)")
  }
}
