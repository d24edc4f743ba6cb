import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The test kit's scopes clean up also when their body throws: the engine is shut down, the
/// folder removed, the origin and children stopped.
@Suite struct TestKitScopeTests {
  struct Boom: Error {}

  @Test func withEngineShutsDownAndRemovesItsFolderWhenTheBodyThrows() async throws {
    let fetcher = ScriptedFetcher()
    fetcher.set("[1]", etag: "\"1\"")
    let asset = AssetDefinition(id: "a", remote: URL(string: "scripted://a"), format: .json)
    var seen: (engine: AssetEngine, folder: URL, cache: URL)?
    await #expect(throws: Boom.self) {
      try await withEngine([asset], fetchers: [fetcher]) { engine, dir in
        #expect(await engine.refresh("a").isUpdated)
        seen = (engine, dir.url, dir.cache)
        throw Boom()
      }
    }
    let (engine, folder, cache) = try #require(seen)
    #expect(cache.path == folder.appendingPathComponent("cache").path, "the cache is a subfolder")
    #expect(!FileManager.default.fileExists(atPath: folder.path))
    // A shut-down engine's event streams end after their snapshot; a running one's stay open.
    #expect(
      await streamEnds(await engine.events(), within: .seconds(10)), "the engine was shut down")
  }

  /// Whether `stream` finishes within `limit` (bounded; the stream is cancelled otherwise).
  func streamEnds(_ stream: AsyncStream<EngineEvent>, within limit: Duration) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        for await _ in stream {}
        return !Task.isCancelled
      }
      group.addTask {
        try? await Task.sleep(for: limit)
        return false
      }
      let ended = await group.next() ?? false
      group.cancelAll()
      return ended
    }
  }

  @Test func withEngineOnAGivenCacheKeepsTheFolder() async throws {
    try await withTemporaryDirectory { dir in
      let asset = AssetDefinition(id: "a", remote: nil, bundled: .bytes(Data("{}".utf8)))
      try await withEngine([asset], cache: dir.cache, fetchers: []) { _ in }
      #expect(
        FileManager.default.fileExists(atPath: dir.cache.appendingPathComponent(".lock").path))
    }
  }

  @Test func withTemporaryDirectoryRemovesTheFolderWhenTheBodyThrows() async throws {
    var folder: URL?
    await #expect(throws: Boom.self) {
      try await withTemporaryDirectory { dir in
        folder = dir.url
        try dir.file("a/b.txt", "x")
        #expect(FileManager.default.fileExists(atPath: dir.url("a/b.txt").path))
        await Task.yield()
        throw Boom()
      }
    }
    #expect(!FileManager.default.fileExists(atPath: try #require(folder).path))
  }

  /// The origin no longer answers once its scope ended. Asked for a path only it serves: under
  /// the suite's load another test once started a server on the freed port before this test
  /// looked, and a bare "is anything listening" check failed.
  @Test func withOriginShutsTheOriginDownWhenTheBodyThrows() async throws {
    var port: Int?
    let marker = "scope-\(UUID().uuidString)"
    await #expect(throws: Boom.self) {
      try await withOrigin { origin in
        port = origin.port
        await origin.setResource("/\(marker)", body: Data(marker.utf8), contentType: "text/plain")
        #expect(loopbackAnswer(port: origin.port, path: "/\(marker)")?.contains(marker) == true)
        throw Boom()
      }
    }
    let answer = loopbackAnswer(port: try #require(port), path: "/\(marker)")
    #expect(answer?.contains(marker) != true, "\(answer ?? "")")
  }

  @Test func withRunningProcessStopsTheChildWhenTheBodyThrows() async throws {
    var child: RunningProcess?
    await #expect(throws: Boom.self) {
      try await withRunningProcess(executable: "/bin/sh", ["-c", "echo ready; exec sleep 60"]) {
        process in
        child = process
        #expect(await process.waitForOutput(containing: "ready"))
        throw Boom()
      }
    }
    #expect(try #require(child).isRunning == false)
  }

  @Test func processRunnerCollectsBothOutputsAndTheStatus() async throws {
    let result = try await ProcessRunner.run(
      executable: "/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
    #expect(result.status == 3)
    #expect(result.stdout == "out\n")
    #expect(result.stderr == "err\n")
    // More than a pipe holds (64 KiB): drained while the child runs, so it cannot stall.
    let big = try await ProcessRunner.runTool("head", ["-c", "300000", "/dev/zero"])
    #expect(big.status == 0)
    #expect(big.stdout.utf8.count == 300_000)
  }

  @Test func processRunnerEndsAChildThatOutlivesItsTimeout() async throws {
    let result = try await ProcessRunner.run(executable: "/bin/sleep", ["60"], timeout: 0.5)
    #expect(result.status == SIGKILL, "killed, not a clean exit after 60 s")
  }

  @Test func aFreeLoopbackPortCanBeBound() async throws {
    let port = freeLoopbackPort()
    #expect(port > 0)
    let origin = try await LoopbackOrigin.start(port: port)
    #expect(origin.port == port)
    try await origin.shutdown()
  }

  @Test(
    .enabled(if: ExternalTool.shouldRun("nginx"), "needs nginx (apt-get install -y nginx-light)"))
  func withNginxStopsTheServerWhenTheBodyThrows() async throws {
    var seen: (port: Int, root: URL)?
    await #expect(throws: Boom.self) {
      try await withNginx { nginx in
        seen = (nginx.port, nginx.root)
        #expect(isListening(onLoopbackPort: nginx.port))
        throw Boom()
      }
    }
    let (port, root) = try #require(seen)
    #expect(!isListening(onLoopbackPort: port))
    #expect(!FileManager.default.fileExists(atPath: root.path))
  }
}
