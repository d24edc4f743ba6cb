import AssetJSON
import AssetWatchTestKit
import Foundation
import Testing

@testable import TUFPublish

/// `assetwatch publish guard` (the built binary) against a repository `publish` made: the dry
/// run signs nothing, no data holds and a hold past the deadline halts (signed, percent 0,
/// never widened again), a `--check` that returns a sample halts, bad input is exit 2, and the
/// evidence in `custom.rollout.guard` verifies and is read by python-tuf.
@Suite struct PublishGuardCommandTests {
  /// A repository with `flags` at version 1, then 2 staged at 5 % over it.
  static func staged(in dir: TemporaryDirectory, percent: Int = 5) async throws -> (
    repo: String, keys: String
  ) {
    let (repo, keys) = try await PublishFixtures.initWithBinary(in: dir)
    let v1 = try dir.file("flags-1.json", #"{"v":1}"#)
    let v2 = try dir.file("flags-2.json", #"{"v":2}"#)
    var result = try await PublishCommandTests.run([
      "add", "--repo", repo, "--keys-dir", keys, "flags", v1.path, "--version", "1",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    result = try await PublishCommandTests.run([
      "update", "--repo", repo, "--keys-dir", keys, "flags", v2.path, "--version", "2",
      "--rollout", "\(percent)",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    return (repo, keys)
  }

  static func guardRun(
    _ repo: String, _ keys: String, prometheus: String, _ more: [String],
    timeout: TimeInterval = 120
  ) async throws -> ProcessRunner.Result {
    try await AssetWatchBinary.run(
      [
        "publish", "guard", "flags", "--repo", repo, "--keys-dir", keys, "--prometheus",
        prometheus,
      ] + more, timeout: timeout)
  }

  /// The JSON lines of a `--json` run (Foundation's parser: alpha and p are floats, which
  /// TUF's strict parser refuses).
  static func lines(_ result: ProcessRunner.Result) -> [[String: Any]] {
    result.stdout.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
  }

  /// `flags` as the guard reads it back.
  static func target(_ repo: String) throws -> GuardedTarget {
    try #require(try Repository.load(folder: repo).guardedTarget("flags"))
  }

  /// A loopback URL nothing listens on.
  static var deadPrometheus: String { "http://127.0.0.1:\(freeLoopbackPort())" }

  @Test func aDryRunJudgesAndSignsNothing() async throws {
    try await withTemporaryDirectory { dir in
      let (repo, keys) = try await Self.staged(in: dir)
      let before = try Repository.load(folder: repo).timestamp.version
      let result = try await Self.guardRun(
        repo, keys, prometheus: Self.deadPrometheus, ["--dry-run", "--json", "--timeout", "1"])
      #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
      let lines = Self.lines(result)
      #expect(lines.first?["event"] as? String == "plan")
      #expect(lines.first?["steps"] as? [Int] == [5, 25, 50, 100])
      let decision = lines.first { $0["event"] as? String == "decision" }
      #expect(decision?["verdict"] as? String == "HOLD")
      #expect((decision?["reason"] as? String)?.hasPrefix("no data: ") == true)
      #expect(try Repository.load(folder: repo).timestamp.version == before)
      #expect(try Self.target(repo).evidence == nil)
    }
  }

  @Test func noDataHoldsAndAHoldPastTheDeadlineHaltsForGood() async throws {
    try await withTemporaryDirectory { dir in
      let (repo, keys) = try await Self.staged(in: dir)
      let result = try await Self.guardRun(
        repo, keys, prometheus: Self.deadPrometheus,
        ["--json", "--timeout", "1", "--interval", "0.5", "--hold-deadline", "2s", "--soak", "1s"])
      #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
      let lines = Self.lines(result)
      let verdicts = lines.filter { $0["event"] as? String == "decision" }.compactMap {
        $0["verdict"] as? String
      }
      #expect(verdicts.first == "HOLD" && verdicts.last == "HALT", "\(verdicts)")
      #expect(!verdicts.contains("ADVANCE"))
      // Signed: the start at 5 %, then the halt at 0 %; nothing wider, ever.
      let signed = lines.filter { $0["event"] as? String == "signed" }
      #expect(signed.map { $0["step"] as? Int } == [5, 0], "\(signed)")
      let target = try Self.target(repo)
      #expect(target.percent == 0)
      #expect(target.fromVersion == "1")
      let evidence = try #require(target.evidence)
      #expect(evidence.verdict == "halt" && evidence.step == 0)
      #expect(
        evidence.reason.contains("past the hold deadline of 2s: no data"), "\(evidence.reason)")
      #expect(evidence.steps == [5, 25, 50, 100])
      // The engine's verifier accepts what the guard signed.
      let (_, listed, _) = try PublishFixtures.verify(repo, target: "flags")
      #expect(listed?.custom?["rollout"]?["percent"] == .integer(0))

      // Run again: halted stays halted (exit 3, nothing signed).
      let version = try Repository.load(folder: repo).targets.version
      let again = try await Self.guardRun(
        repo, keys, prometheus: Self.deadPrometheus, ["--timeout", "1"])
      #expect(again.status == 3, "\(again.stdout)\(again.stderr)")
      #expect(again.stdout.contains("never widens a halted rollout"), "\(again.stdout)")
      #expect(try Repository.load(folder: repo).targets.version == version)

      // A person's publish update starts a new rollout: the evidence goes.
      let update = try await PublishCommandTests.run([
        "update", "--repo", repo, "--keys-dir", keys, "flags", "--rollout", "5",
      ])
      #expect(update.status == 0, "\(update.stderr)")
      #expect(try Self.target(repo).evidence == nil)
      let dry = try await Self.guardRun(
        repo, keys, prometheus: Self.deadPrometheus, ["--dry-run", "--timeout", "1"])
      #expect(dry.status == 0)
      #expect(dry.stdout.contains("starts a guarded rollout at 5 %"), "\(dry.stdout)")
    }
  }

  @Test func aCheckThatReturnsASampleHalts() async throws {
    try await withTemporaryDirectory { dir in
      let (repo, keys) = try await Self.staged(in: dir, percent: 10)
      try await withPrometheus(targets: []) { prometheus in
        let result = try await Self.guardRun(
          repo, keys, prometheus: prometheus.baseURL,
          ["--check", #"vector(1) > 0"#, "--check", "up == 2", "--interval", "0.5"])
        #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("HALT 10 %: check fired: vector(1) > 0 returned 1 sample"))
        let target = try Self.target(repo)
        #expect(target.percent == 0)
        #expect(target.evidence?.reason.hasPrefix("check fired: vector(1) > 0") == true)

        // A check Prometheus cannot parse is bad input, before anything is signed.
        let update = try await PublishCommandTests.run([
          "update", "--repo", repo, "--keys-dir", keys, "flags", "--rollout", "10",
        ])
        #expect(update.status == 0)
        let version = try Repository.load(folder: repo).targets.version
        let bad = try await Self.guardRun(
          repo, keys, prometheus: prometheus.baseURL, ["--check", "up{"])
        #expect(bad.status == 2, "\(bad.stdout)\(bad.stderr)")
        #expect(bad.stderr.contains("--check"), "\(bad.stderr)")
        #expect(try Repository.load(folder: repo).targets.version == version)
      }
    }
  }

  @Test func badInputIsExitTwoAndNothingIsSigned() async throws {
    try await withTemporaryDirectory { dir in
      let (repo, keys) = try await Self.staged(in: dir)
      let version = try Repository.load(folder: repo).targets.version
      let dead = Self.deadPrometheus
      for (arguments, words) in [
        (["--steps", "50,25"], "must increase"),
        (["--steps", "0,50"], "percent from 1 to 100"),
        (["--soak", "ten"], "--soak"),
        (["--hold-deadline", "0s"], "--hold-deadline"),
        (["--max-rejections=-1"], "--max-rejections"),
        (["--selector", "{job="], "brace"),
        // The timestamp signed at a step would lapse in the middle of a 10 minute soak.
        (["--expires", "timestamp=5m", "--soak", "10m"], "refusing to start: timestamp"),
      ] {
        let result = try await Self.guardRun(
          repo, keys, prometheus: dead, arguments + ["--timeout", "1"])
        #expect(result.status == 2, "\(arguments): \(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(words), "\(arguments): \(result.stderr)")
      }
      let noKeys = try await AssetWatchBinary.run([
        "publish", "guard", "flags", "--repo", repo, "--prometheus", dead,
      ])
      #expect(noKeys.status == 2, "\(noKeys.stderr)")
      #expect(noKeys.stderr.contains("targets key"), "\(noKeys.stderr)")
      #expect(try Repository.load(folder: repo).targets.version == version)
    }
  }

  @Test func aTargetNotStagedIsDone() async throws {
    try await withTemporaryDirectory { dir in
      let (repo, keys) = try await Self.staged(in: dir, percent: 100)
      let result = try await Self.guardRun(repo, keys, prometheus: Self.deadPrometheus, [])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout.contains("is not staged"), "\(result.stdout)")
    }
  }

  @Test func pythonTUFReadsTheGuardsEvidence() async throws {
    try await withTemporaryDirectory { dir in
      let (repo, keys) = try await Self.staged(in: dir)
      let result = try await Self.guardRun(
        repo, keys, prometheus: Self.deadPrometheus,
        ["--timeout", "1", "--interval", "0.5", "--hold-deadline", "1s"])
      #expect(result.status == 3, "\(result.stdout)\(result.stderr)")
      let read = try PublishFixtures.ngclient(
        repo: repo, metadataDir: dir.path + "/client", trustedRoot: repo + "/metadata/1.root.json",
        targets: ["flags"])
      #expect(read.bytes("flags") == Array(#"{"v":2}"#.utf8))
      let rollout = read.targets["flags"]??.custom?.value["rollout"]
      #expect(rollout?["percent"] == .integer(0))
      #expect(rollout?["from"]?["version"] == .string("1"))
      #expect(rollout?["guard"]?["verdict"] == .string("halt"))
      #expect(rollout?["guard"]?["step"] == .integer(0))
    }
  }
}
