import AssetJSON
import AssetWatchTestKit
import Foundation
import Testing

@testable import TUFPublish

/// `assetwatch publish` as a user runs it (the built binary): key files, no key on the terminal,
/// keys from the environment for CI, one-line refusals with exit 2, status as JSON.
@Suite struct PublishCommandTests {
  static func run(_ arguments: [String], environment: [String: String] = [:]) async throws
    -> ProcessRunner.Result
  {
    try await AssetWatchBinary.run(["publish"] + arguments, environment: environment)
  }

  @Test func initAddStatusAndTheKeysStayInTheirFiles() async throws {
    try await withTemporaryDirectory { dir in
      let repo = dir.path + "/site"
      let keys = dir.path + "/keys"
      var result = try await Self.run(["init", "--repo", repo, "--keys-dir", keys])
      #expect(result.status == 0, "\(result.stderr)")
      let keyFiles = try FileManager.default.contentsOfDirectory(atPath: keys).sorted()
      #expect(keyFiles.count == 4)
      #expect(keyFiles.allSatisfy { $0.hasSuffix(".key") })
      for name in keyFiles {
        let path = keys + "/" + name
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "\(name)")
        let secret = try String(contentsOfFile: path, encoding: .utf8)
          .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!result.stdout.contains(secret))
        #expect(!result.stderr.contains(secret))
      }
      #expect(result.stdout.contains("published: root 1, targets 1, snapshot 1, timestamp 1"))

      // init twice is refused, and so is a keys folder inside the served folder.
      result = try await Self.run(["init", "--repo", repo, "--keys-dir", dir.path + "/other"])
      #expect(result.status == 2)
      result = try await Self.run([
        "init", "--repo", dir.path + "/s2", "--keys-dir", dir.path + "/s2/keys",
      ])
      #expect(result.status == 2)
      #expect(result.stderr.contains("inside the repository folder"))
      #expect(!FileManager.default.fileExists(atPath: dir.path + "/s2/keys"))

      let file = try dir.file("flags.json", #"{"beta":true}"#)
      result = try await Self.run([
        "add", "--repo", repo, "--keys-dir", keys, "flags", file.path, "--version", "7",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      result = try await Self.run([
        "update", "--repo", repo, "--keys-dir", keys, "flags", "--rollout", "20",
      ])
      #expect(result.status == 0, "\(result.stderr)")

      result = try await Self.run(["status", "--repo", repo, "--json"])
      #expect(result.status == 0, "\(result.stderr)")
      let status = try JSONParser.parse(Array(result.stdout.utf8))
      #expect(status["roles"]?.arrayValue?.count == 4)
      #expect(status["targets"]?.arrayValue?.first?["path"] == .string("flags"))
      #expect(status["targets"]?.arrayValue?.first?["version"] == .string("7"))
      #expect(status["targets"]?.arrayValue?.first?["rolloutPercent"] == .integer(20))
      #expect(status["expiringSoon"] == .array([]))
      result = try await Self.run(["status", "--repo", repo])
      #expect(result.stdout.contains("timestamp  3"))
      #expect(result.stdout.contains("nothing expires soon"))
      let (trusted, target, _) = try PublishFixtures.verify(repo, target: "flags")
      #expect(trusted.timestamp?.version == 3)
      #expect(target?.custom?["rollout"]?["percent"] == .integer(20))
    }
  }

  @Test func ciSignsFromAnEnvironmentVariableWithoutAKeyFile() async throws {
    try await withTemporaryDirectory { dir in
      let repo = dir.path + "/site"
      let keys = dir.path + "/keys"
      _ = try await Self.run(["init", "--repo", repo, "--keys-dir", keys])
      let timestampFile = try FileManager.default.contentsOfDirectory(atPath: keys)
        .first { $0.hasPrefix("timestamp-") }!
      let secret = try String(contentsOfFile: keys + "/" + timestampFile, encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines)

      // Without the key: one line naming the variable, exit 2, the timestamp unchanged.
      var result = try await Self.run(["refresh-timestamp", "--repo", repo])
      #expect(result.status == 2)
      #expect(result.stderr.contains("ASSETWATCH_KEY_TIMESTAMP"))
      #expect(result.stderr.split(separator: "\n").count == 1)

      result = try await Self.run(
        ["refresh-timestamp", "--repo", repo, "--expires", "timestamp=6h"],
        environment: ["ASSETWATCH_KEY_TIMESTAMP": secret])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
      let (trusted, _, _) = try PublishFixtures.verify(repo)
      #expect(trusted.timestamp?.version == 2)
      #expect(trusted.snapshot?.version == 1)
      #expect(abs(trusted.timestamp!.expires.timeIntervalSinceNow - 6 * 3600) < 120)

      // --key-env names another variable.
      result = try await Self.run(
        ["refresh-timestamp", "--repo", repo, "--key-env", "TS_KEY"],
        environment: ["TS_KEY": secret])
      #expect(result.status == 0, "\(result.stderr)")
      // A malformed key is named by its variable, never echoed.
      result = try await Self.run(
        ["refresh-timestamp", "--repo", repo], environment: ["ASSETWATCH_KEY_TIMESTAMP": "0123abcd"]
      )
      #expect(result.status == 2)
      #expect(result.stderr.contains("$ASSETWATCH_KEY_TIMESTAMP does not hold"))
      #expect(!result.stderr.contains("0123abcd"))
    }
  }

  @Test func badInputIsOneLineAndExitTwo() async throws {
    try await withTemporaryDirectory { dir in
      let cases: [[String]] = [
        ["status", "--repo", dir.path + "/none"],
        ["add", "--repo", dir.path + "/none", "x", "/dev/null"],
        [
          "init", "--repo", dir.path + "/r", "--keys-dir", dir.path + "/k", "--threshold", "root=2",
        ],
        [
          "init", "--repo", dir.path + "/r", "--keys-dir", dir.path + "/k2", "--expires",
          "timestamp=soon",
        ],
      ]
      for arguments in cases {
        let result = try await Self.run(arguments)
        #expect(result.status == 2, "\(arguments)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(arguments): \(result.stderr)")
        #expect(lines.first?.hasPrefix("publish ") == true, "\(arguments)")
      }
    }
  }

  /// The lifetime cap is on the seconds, not the count: `9000y` used to sign a root expiring in
  /// year 11020 and `2148908724y` to trap formatting it (exit 132).
  @Test func expiresPastAHundredYearsIsABadOptionAndNothingIsWritten() async throws {
    try await withTemporaryDirectory { dir in
      for (i, lifetime) in ["root=9000y", "root=2148908724y", "targets=36501d"].enumerated() {
        let repo = dir.path + "/r\(i)"
        let result = try await Self.run([
          "init", "--repo", repo, "--keys-dir", dir.path + "/k\(i)", "--expires", lifetime,
        ])
        #expect(result.status == 2, "\(lifetime): \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(lifetime): \(result.stderr)")
        #expect(lines.first?.contains("--expires \(lifetime): at most 100 years") == true)
        #expect(!FileManager.default.fileExists(atPath: repo + "/metadata/timestamp.json"))
      }
      let result = try await Self.run([
        "init", "--repo", dir.path + "/ok", "--keys-dir", dir.path + "/kok", "--expires",
        "root=100y",
      ])
      #expect(result.status == 0, "\(result.stderr)")
    }
  }

  @Test func rotateRootReplacesALostTimestampKey() async throws {
    try await withTemporaryDirectory { dir in
      let repo = dir.path + "/site"
      let keys = dir.path + "/keys"
      _ = try await Self.run(["init", "--repo", repo, "--keys-dir", keys])
      let lost = try FileManager.default.contentsOfDirectory(atPath: keys)
        .first { $0.hasPrefix("timestamp-") }!
      let lostID = String(lost.dropFirst("timestamp-".count).dropLast(".key".count))
      try FileManager.default.removeItem(atPath: keys + "/" + lost)
      let result = try await Self.run([
        "rotate-root", "--repo", repo, "--keys-dir", keys, "--remove-key", "timestamp=\(lostID)",
        "--generate", "timestamp",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let (trusted, _, _) = try PublishFixtures.verify(repo)
      #expect(trusted.root.version == 2)
      #expect(trusted.root.roles["timestamp"]?.keyIDs.contains { $0.hasPrefix(lostID) } == false)
      let files = try FileManager.default.contentsOfDirectory(atPath: keys)
      #expect(files.filter { $0.hasPrefix("timestamp-") }.count == 1)
    }
  }

  /// `init --keys targets=2 --threshold targets=2`: targets needs both keys; with one the step
  /// is refused before anything is written, with both the metadata carries two signatures.
  @Test func aThresholdOfTwoNeedsBothKeys() async throws {
    try await withTemporaryDirectory { dir in
      let repo = dir.path + "/site"
      let keys = dir.path + "/keys"
      var result = try await Self.run([
        "init", "--repo", repo, "--keys-dir", keys, "--keys", "targets=2", "--threshold",
        "targets=2",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let targetKeys = try FileManager.default.contentsOfDirectory(atPath: keys)
        .filter { $0.hasPrefix("targets-") }.sorted()
      #expect(targetKeys.count == 2)
      let file = try dir.file("a.txt", "a")
      // One targets key moved away: refused, nothing written.
      try FileManager.default.createDirectory(
        atPath: dir.path + "/offline", withIntermediateDirectories: true)
      try FileManager.default.moveItem(
        atPath: keys + "/" + targetKeys[1], toPath: dir.path + "/offline/" + targetKeys[1])
      let before = try FileManager.default.contentsOfDirectory(atPath: repo + "/metadata")
      result = try await Self.run(["add", "--repo", repo, "--keys-dir", keys, "a", file.path])
      #expect(result.status == 2)
      #expect(result.stderr.contains("needs 2 of the 2 targets key(s)"), "\(result.stderr)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: repo + "/metadata") == before)
      // The second key from the environment: both sign.
      let second = try String(
        contentsOfFile: dir.path + "/offline/" + targetKeys[1], encoding: .utf8)
      result = try await Self.run(
        ["add", "--repo", repo, "--keys-dir", keys, "a", file.path],
        environment: ["ASSETWATCH_KEY_TARGETS": second.trimmingCharacters(in: .newlines)])
      #expect(result.status == 0, "\(result.stderr)")
      let (trusted, target, _) = try PublishFixtures.verify(repo, target: "a")
      #expect(trusted.root.roles["targets"]?.threshold == 2)
      #expect(target != nil)
      #expect(try Repository.load(folder: repo).targets.keyIDsSigned.count == 2)
    }
  }
}
