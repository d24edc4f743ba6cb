import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

/// The config's `"tuf"` block and the assets' `targetPath`: parsed into a ``TUFSource``, every
/// problem named by file line and field path (`tuf.metadataURL`), `tuf` next to `manifest`
/// refused.
@Suite struct TUFConfigTests {
  /// Parses `json` as `<dir>/assets.json`, with the fixture's trusted root copied to
  /// `<dir>/keys/root.json`.
  func parse(_ json: String, dir: TemporaryDirectory) throws -> EngineConfiguration {
    try FileManager.default.createDirectory(
      at: dir.url("keys"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: TUFRepositoryFixture.trustedRootURL(), to: dir.url("keys/root.json"))
    return try ConfigurationLoader.parse(
      Data(json.utf8), path: dir.url("assets.json").path, environment: [:])
  }

  func problems(_ json: String) throws -> [ConfigProblem] {
    try withTemporaryDirectory(prefix: "aw-tufconfig") { dir in
      do {
        _ = try parse(json, dir: dir)
        Issue.record("expected a ConfigurationError")
        return []
      } catch let error as ConfigurationError {
        return error.problems
      }
    }
  }

  static let good = """
    {
      "appVersion": "1.0",
      "tuf": {
        "metadataURL": "https://updates.example.com/metadata/",
        "targetsURL": "https://updates.example.com/targets/",
        "root": "keys/root.json"
      },
      "assets": [
        { "id": "hello", "targetPath": "files/hello.txt" },
        { "id": "data.bin" },
        { "id": "local", "remote": "file://local.json", "refreshEvery": "live" }
      ]
    }
    """

  @Test func aTUFBlockIsParsedWithTheRootRelativeToTheConfigFolder() throws {
    try withTemporaryDirectory(prefix: "aw-tufconfig") { dir in
      let config = try parse(Self.good, dir: dir)
      let tuf = try #require(config.tuf)
      #expect(tuf.metadataURL.absoluteString == "https://updates.example.com/metadata/")
      #expect(tuf.targetsURL.absoluteString == "https://updates.example.com/targets/")
      #expect(tuf.root.path == dir.url("keys/root.json").standardizedFileURL.path)
      #expect(config.manifest == nil)
      #expect(config.followsTargets)
      // No remote and no bundled copy is fine: the signed target gives the URL.
      #expect(config.assets.map(\.id) == ["hello", "data.bin", "local"])
      #expect(config.assets[0].targetPath == "files/hello.txt")
      #expect(config.assets[0].remote == nil)
      #expect(config.assets[1].targetPath == nil)  // the asset id is the target path
    }
  }

  @Test func withoutATUFBlockNothingChanges() throws {
    try withTemporaryDirectory(prefix: "aw-tufconfig") { dir in
      let config = try parse(
        #"{ "appVersion": "1", "assets": [ { "id": "a", "remote": "https://example.com/a" } ] }"#,
        dir: dir)
      #expect(config.tuf == nil)
      #expect(!config.followsTargets)
      #expect(config.assets[0].targetPath == nil)
    }
  }

  @Test func tufAndManifestTogetherAreRefused() throws {
    let p = try problems(
      """
      {
        "appVersion": "1",
        "manifest": "https://updates.example.com/manifest.json",
        "tuf": {
          "metadataURL": "https://updates.example.com/metadata/",
          "targetsURL": "https://updates.example.com/targets/",
          "root": "keys/root.json"
        },
        "assets": [ { "id": "a" } ]
      }
      """)
    #expect(p.count == 1)
    #expect(p.first?.path == "tuf")
    #expect(p.first?.line == 4)
    #expect(p.first?.message.contains("\"manifest\"") == true)
  }

  @Test func eachFieldProblemNamesTheFieldAndItsLine() throws {
    let p = try problems(
      """
      {
        "appVersion": "1",
        "tuf": {
          "metadataURL": "http://updates.example.com/metadata/",
          "targetsURL": "file:///srv/targets",
          "root": "keys/missing.json",
          "mirrors": []
        },
        "assets": [ { "id": "a", "targetPath": "../escape" } ]
      }
      """)
    func find(_ path: String) -> ConfigProblem? { p.first { $0.path == path } }
    #expect(find("tuf.metadataURL")?.line == 4)
    #expect(
      find("tuf.metadataURL")?.message == "http:// is allowed only to loopback; use https://")
    #expect(find("tuf.targetsURL")?.line == 5)
    #expect(find("tuf.targetsURL")?.message.contains("file://") == true)
    #expect(find("tuf.root")?.line == 6)
    #expect(find("tuf.root")?.message.contains("does not exist") == true)
    #expect(find("tuf.mirrors")?.line == 7)
    #expect(find("assets[0].targetPath")?.line == 9)
  }

  @Test func missingFieldsNameTheBlocksLine() throws {
    let p = try problems(
      """
      {
        "appVersion": "1",
        "tuf": {
          "root": "keys/root.json"
        },
        "assets": [ { "id": "a" } ]
      }
      """)
    #expect(
      p.map { "\($0.line ?? 0) \($0.description)" } == [
        "3 tuf.metadataURL: is missing", "3 tuf.targetsURL: is missing",
      ])
  }

  @Test func aRootThatIsNotASelfSignedTUFRootIsRefused() throws {
    try withTemporaryDirectory(prefix: "aw-tufconfig") { dir in
      try Data(#"{"signed": {"_type": "targets"}, "signatures": []}"#.utf8).write(
        to: dir.url("fake-root.json"))
      do {
        _ = try parse(
          """
          {
            "appVersion": "1",
            "tuf": {
              "metadataURL": "https://updates.example.com/metadata/",
              "targetsURL": "https://updates.example.com/targets/",
              "root": "fake-root.json"
            },
            "assets": [ { "id": "a" } ]
          }
          """, dir: dir)
        Issue.record("expected a ConfigurationError")
      } catch let error as ConfigurationError {
        #expect(error.problems.count == 1)
        #expect(error.problems.first?.path == "tuf.root")
        #expect(error.problems.first?.line == 6)
        #expect(error.problems.first?.message.hasPrefix("is not a usable TUF root: ") == true)
        #expect(
          error.lines.first?.hasPrefix(dir.url("assets.json").path + ":6: tuf.root: ") == true)
      }
    }
  }

  @Test func targetPathNeedsATUFBlockAndAnAssetNeedsASourceWithoutOne() throws {
    let p = try problems(
      #"{ "appVersion": "1", "assets": [ { "id": "a", "targetPath": "files/a" }, { "id": "b" } ] }"#
    )
    #expect(p.contains { $0.path == "assets[0].targetPath" && $0.message.contains("\"tuf\"") })
    #expect(p.contains { $0.path == "assets[1]" && $0.message.contains("needs a \"remote\"") })
  }

  @Test func tufMustBeAnObject() throws {
    let p = try problems(#"{ "appVersion": "1", "tuf": "https://x", "assets": [ { "id": "a" } ] }"#)
    #expect(p.contains { $0.path == "tuf" && $0.message == "must be an object, not a string" })
  }
}
