import AssetJSON
import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

@testable import TUFPublish

/// The engine (through the built binary's `status --refresh`) following a repository that
/// `assetwatch publish` wrote, served on 127.0.0.1: it takes the signed version, refuses a
/// tampered target and an expired timestamp, and keeps serving the last good copy.
@Suite struct EngineFollowsPublishTests {
  /// Makes `origin` serve every file of `folder` at `/<relative path>`.
  static func serve(_ folder: String, on origin: LoopbackOrigin) async throws {
    guard let walker = FileManager.default.enumerator(atPath: folder) else { return }
    while let name = walker.nextObject() as? String {
      var isFolder: ObjCBool = false
      let path = folder + "/" + name
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder),
        !isFolder.boolValue, !(name as NSString).lastPathComponent.hasPrefix(".")
      else { continue }
      await origin.setResource(
        "/" + name, body: try Data(contentsOf: URL(fileURLWithPath: path)),
        contentType: "application/octet-stream")
    }
  }

  /// Writes `dir/assets.json`: an engine following the repository `repo` served by `origin`
  /// (its first root shipped as `dir/root.json`), with `assets` (JSON objects, comma-separated).
  static func follow(
    _ repo: String, on origin: LoopbackOrigin, in dir: TemporaryDirectory, assets: String
  ) throws {
    try FileManager.default.copyItem(
      atPath: repo + "/metadata/1.root.json", toPath: dir.path + "/root.json")
    _ = try dir.file(
      "assets.json",
      """
      { "appVersion": "1.0", "cacheDirectory": "cache",
        "tuf": { "metadataURL": "\(origin.baseURL)/metadata/",
                 "targetsURL": "\(origin.baseURL)/targets/", "root": "root.json" },
        "assets": [ \(assets) ] }
      """)
  }

  static func status(_ dir: TemporaryDirectory) async throws -> JSONValue {
    let result = try await AssetWatchBinary.run(
      ["status", "--refresh", "--json", "--config", dir.path + "/assets.json"])
    return try JSONParser.parse(Array(result.stdout.utf8))
  }

  @Test func theEngineTakesWhatPublishSignedAndRefusesAnAttacker() async throws {
    try await withOrigin { origin in
      try await withTemporaryDirectory { dir in
        let (repo, keys) = try await PublishFixtures.initWithBinary(in: dir)
        var result: ProcessRunner.Result
        let v7 = try dir.file("flags-v7.json", #"{"beta":false}"#)
        result = try await AssetWatchBinary.run([
          "publish", "add", "--repo", repo, "--keys-dir", keys, "flags", v7.path, "--version", "7",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        try await Self.serve(repo, on: origin)
        try Self.follow(repo, on: origin, in: dir, assets: #"{ "id": "flags", "format": "json" }"#)
        var status = try await Self.status(dir)
        var flags = status["assets"]?.arrayValue?.first
        #expect(flags?["version"] == .string("7"))
        #expect(flags?["source"] == .string("cached"))
        #expect(status["trust"]?["signed"] == .bool(true))

        // An attacker serves other bytes under the new target's name: refused, v7 kept.
        let v8 = try dir.file("flags-v8.json", #"{"beta":true}"#)
        result = try await AssetWatchBinary.run([
          "publish", "update", "--repo", repo, "--keys-dir", keys, "flags", v8.path, "--version",
          "8",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        try await Self.serve(repo, on: origin)
        let repository = try Repository.load(folder: repo)
        let sha = try #require(repository.target("flags")?["hashes"]?["sha256"]?.stringValue)
        await origin.setResource(
          "/targets/\(sha).flags", body: Data(#"{"beta":"pwned"}"#.utf8),
          contentType: "application/json")
        status = try await Self.status(dir)
        flags = status["assets"]?.arrayValue?.first
        #expect(flags?["version"] == .string("7"))
        #expect(flags?["lastError"]?["kind"] == .string("untrusted"))

        // The real bytes again: v8 is taken.
        try await Self.serve(repo, on: origin)
        status = try await Self.status(dir)
        flags = status["assets"]?.arrayValue?.first
        #expect(flags?["version"] == .string("8"))

        // A replayed timestamp that has expired (signed with the real key, an hour ago).
        var stale = repository
        var ring = KeyRing()
        try ring.addFolder(keys)
        var publication = Publication()
        try stale.publish(
          from: "targets", ring: ring, expiry: ExpiryPolicy(["timestamp": 60]),
          now: Date() - 3600, into: &publication)
        try RepositoryWriter(folder: repo).write(publication)
        try await Self.serve(repo, on: origin)
        status = try await Self.status(dir)
        flags = status["assets"]?.arrayValue?.first
        #expect(flags?["version"] == .string("8"))
        #expect(flags?["source"] == .string("cached"))
        let refusal = status["trust"]?["refusal"]?.stringValue ?? ""
        #expect(refusal.contains("timestamp") && refusal.contains("expired"), "\(refusal)")
      }
    }
  }
}
