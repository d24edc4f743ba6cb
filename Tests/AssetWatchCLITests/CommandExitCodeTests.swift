import ArgumentParser
import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssets
import RemoteAssetsTestKit
import Testing

@testable import AssetWatchCLI

/// The commands run in process, as the executable runs them, over a config in a temporary folder
/// and a real origin on 127.0.0.1: the exit status each outcome documents (0, 1 for a failure or
/// an unknown id, 2 for a bad config), through an engine of their own and through `--attach`.
@Suite struct CommandExitCodeTests {
  /// A folder with `assets.json`: `flags` (served, bundled copy), `motd` (essential, 404, no
  /// bundled copy).
  static func withConfig(_ body: (TemporaryDirectory, LoopbackOrigin) async throws -> Void)
    async throws
  {
    try await withOrigin { origin in
      await origin.setResource(
        "/flags.json", body: Data(#"{"beta":true}"#.utf8), contentType: "application/json")
      try await withTemporaryDirectory { dir in
        _ = try dir.file("bundled/flags.json", #"{"beta":false}"#)
        _ = try dir.file(
          "assets.json",
          """
          { "appVersion": "1.0.0", "cacheDirectory": "cache",
            "assets": [
              { "id": "flags", "remote": "\(origin.baseURL)/flags.json",
                "bundled": "bundled/flags.json", "format": "json" },
              { "id": "motd", "remote": "\(origin.baseURL)/missing.txt", "format": "text",
                "essential": true } ] }
          """)
        try await body(dir, origin)
      }
    }
  }

  /// Runs `arguments` as the executable would and returns its exit status.
  static func exitStatus(_ arguments: [String]) async throws -> Int32 {
    var command = try AssetWatchCommand.parseAsRoot(arguments)
    guard var runnable = command as? any AsyncParsableCommand else {
      try command.run()
      return 0
    }
    do {
      try await runnable.run()
      return 0
    } catch let exit as ExitCode {
      return exit.rawValue
    }
  }

  /// Runs `arguments` and expects exit status `status`.
  static func expectExit(
    _ arguments: [String], _ status: Int32, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let actual = try await exitStatus(arguments)
    #expect(actual == status, "\(arguments)", sourceLocation: sourceLocation)
  }

  static func config(_ dir: TemporaryDirectory) -> [String] {
    ["--config", dir.url.appendingPathComponent("assets.json").path]
  }

  @Test func statusExitsOneWhileAnEssentialAssetIsUnusable() async throws {
    try await Self.withConfig { dir, _ in
      try await Self.expectExit(["status"] + Self.config(dir), 1)
      try await Self.expectExit(["status", "--json"] + Self.config(dir), 1)
    }
  }

  @Test func refreshExitsOneForAFailedRefreshOrAnUnknownID() async throws {
    try await Self.withConfig { dir, _ in
      try await Self.expectExit(["refresh", "flags"] + Self.config(dir), 0)
      try await Self.expectExit(["refresh", "motd"] + Self.config(dir), 1)
      try await Self.expectExit(["refresh", "nope"] + Self.config(dir), 1)
      try await Self.expectExit(["refresh", "--json"] + Self.config(dir), 1)
    }
  }

  /// Damage under a running engine, found by `verify --attach` (the engine trusted the copy's
  /// commit stamp until asked to read every byte). A new engine of our own would instead find
  /// the changed stamp while loading and fall back before `verify` ran.
  @Test func verifyExitsOneForADamagedCopy() async throws {
    try await Self.withConfig { dir, _ in
      try await Self.withServedEngine(dir) { cache in
        try await Self.expectExit(["refresh", "flags", "--attach", cache], 0)
        try await Self.expectExit(["verify", "--attach", cache], 0)
        let objects = cache + "/objects"
        let blobs = try FileManager.default.contentsOfDirectory(atPath: objects)
        let blob = try #require(blobs.first)
        try Data(repeating: 0x20, count: 13).write(to: URL(fileURLWithPath: objects + "/" + blob))
        try await Self.expectExit(["verify", "flags", "--attach", cache], 1)
      }
    }
  }

  /// Runs `body` with the path of a cache an engine in this process serves over its socket.
  static func withServedEngine(
    _ dir: TemporaryDirectory, _ body: (String) async throws -> Void
  ) async throws {
    let configuration = try ConfigurationLoader.load(
      path: dir.url.appendingPathComponent("assets.json").path)
    let engine = try AssetEngine(configuration: configuration)
    await engine.start()
    let server = try await engine.startControlServer()
    do {
      try await body(dir.url.appendingPathComponent("cache").path)
    } catch {
      await server.stop()
      await engine.shutdown()
      throw error
    }
    await server.stop()
    await engine.shutdown()
  }

  @Test func actionsExitOneForAnUnknownIDOrARefusal() async throws {
    try await Self.withConfig { dir, _ in
      try await Self.expectExit(["drop", "nope"] + Self.config(dir), 1)
      try await Self.expectExit(["rollback", "flags"] + Self.config(dir), 1)
      try await Self.expectExit(["reset", "flags"] + Self.config(dir), 0)
    }
  }

  @Test func aBadConfigExitsTwo() async throws {
    try await withTemporaryDirectory { dir in
      _ = try dir.file("bad.json", #"{ "appVersion": 3, "assets": [] }"#)
      let path = dir.url.appendingPathComponent("bad.json").path
      try await Self.expectExit(["status", "--config", path], 2)
      try await Self.expectExit(["refresh", "--config", path], 2)
    }
  }

  @Test func attachingToNothingExitsOne() async throws {
    try await withTemporaryDirectory { dir in
      let socket = dir.url.appendingPathComponent("none.sock").path
      for command in ["status", "refresh", "verify"] {
        try await Self.expectExit([command, "--attach", socket], 1)
      }
    }
  }

  @Test func theSameCommandsThroughAnAttachedEngineExitTheSame() async throws {
    try await Self.withConfig { dir, _ in
      try await Self.withServedEngine(dir) { cache in
        try await Self.expectExit(["refresh", "flags", "--attach", cache], 0)
        try await Self.expectExit(["refresh", "motd", "--attach", cache], 1)
        try await Self.expectExit(["refresh", "nope", "--attach", cache], 1)
        try await Self.expectExit(["verify", "--attach", cache], 0)
        try await Self.expectExit(["rollback", "flags", "--attach", cache], 1)
        try await Self.expectExit(["reset", "flags", "--attach", cache], 0)
        try await Self.expectExit(["status", "--attach", cache], 1)
      }
    }
  }
}
