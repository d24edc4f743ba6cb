import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// The engine link: every front end's one way to an engine. Each behaviour is checked through
/// both conformances, the engine in this process and another engine's control socket, against
/// a real origin on 127.0.0.1, so the two cannot drift apart.
@Suite struct EngineLinkTests {
  /// Which conformance a test runs through.
  enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case local, socket
    var testDescription: String { rawValue }
  }

  static let flags = Data(#"{"beta":true}"#.utf8)

  /// An engine over a fresh cache with `flags` (served by `origin`) and `motd` (bundled only),
  /// and a link of `kind` to it; everything is closed when `body` returns or throws.
  static func withLink(
    _ kind: Kind,
    _ body: (any EngineLink, AssetEngine, LoopbackOrigin, TemporaryDirectory) async throws -> Void
  ) async throws {
    try await withOrigin { origin in
      await origin.setResource("/flags.json", body: flags, contentType: "application/json")
      try await withTemporaryDirectory { dir in
        let assets = [
          AssetDefinition(
            id: "flags", remote: URL(string: "\(origin.baseURL)/flags.json"), format: .json),
          AssetDefinition(
            id: "motd", remote: nil, bundled: .bytes(Data("hello".utf8)), format: .text),
        ]
        let engine = try makeTestEngine(assets, cache: dir.cache)
        switch kind {
        case .local:
          let link = LocalEngineLink(engine: engine)
          try await link.open(only: nil, sweep: .none)
          do {
            try await body(link, engine, origin, dir)
          } catch {
            await link.close()
            throw error
          }
          await link.close()
        case .socket:
          await engine.start()
          let server = try await engine.startControlServer()
          let link = SocketEngineLink(path: dir.cache.path, retryInterval: .milliseconds(50))
          do {
            try await link.open(only: nil, sweep: .none)
            try await body(link, engine, origin, dir)
          } catch {
            await link.close()
            await server.stop()
            await engine.shutdown()
            throw error
          }
          await link.close()
          await server.stop()
          await engine.shutdown()
        }
      }
    }
  }

  @Test(arguments: Kind.allCases)
  func refreshReportsEachOutcomeWithTheVersionServed(kind: Kind) async throws {
    try await Self.withLink(kind) { link, engine, _, _ in
      let first = try await link.refresh(["flags"])
      #expect(first.map(\.asset) == ["flags"])
      #expect(first.first?.outcome == .updated)
      #expect(first.first?.error == nil)
      #expect(first.first?.version == (await engine.status("flags"))?.version)
      let all = try await link.refresh([])
      #expect(all.map(\.asset) == ["flags", "motd"])
      #expect(all.first?.outcome == .notModified)
      #expect(all.last?.outcome == .failed)
      #expect(all.last?.error?.isEmpty == false)
    }
  }

  @Test(arguments: Kind.allCases)
  func theCacheSizeReachesTheFrontEndAndFollowsCommits(kind: Kind) async throws {
    try await Self.withLink(kind) { link, _, _, _ in
      let before = try #require(try await link.snapshot().info.cache)
      #expect(before.bytes > 0)  // the marker, at least
      #expect(before.limit == nil)
      _ = try await link.refresh(["flags"])
      // Measured again after the commit, off the refresh's path: poll with a deadline.
      let grown = before.bytes + Int64(Self.flags.count)
      let deadline = ContinuousClock.now + .seconds(10)
      var seen = before
      while seen.bytes < grown, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(20))
        seen = try await link.snapshot().info.cache ?? seen
      }
      #expect(seen.bytes >= grown, "\(seen) after \(before)")
    }
  }

  @Test(arguments: Kind.allCases)
  func aRefusedCommandSaysWhy(kind: Kind) async throws {
    try await Self.withLink(kind) { link, _, _, _ in
      do {
        try await link.perform(.rollback(id: "flags"))
        Issue.record("a rollback with no previous generation was carried out")
      } catch let error as EngineLinkError {
        guard case .refused(let reason) = error else {
          Issue.record("expected a refusal, got \(error)")
          return
        }
        #expect(reason.contains("no previous generation"), "\(reason)")
      }
      await #expect(throws: EngineLinkError.self) { try await link.perform(.dropCache(id: "nope")) }
    }
  }

  @Test(arguments: Kind.allCases)
  func dropAndResetActOnTheEngine(kind: Kind) async throws {
    try await Self.withLink(kind) { link, engine, _, _ in
      _ = try await link.refresh(["flags"])
      #expect(await engine.status("flags")?.source == .cached)
      try await link.perform(.dropCache(id: "flags"))
      #expect(await engine.status("flags")?.source != .cached)
      #expect(try await link.snapshot().assets.first { $0.id == "flags" }?.source != .cached)
      try await link.perform(.pauseAutoRefresh)
      #expect(try await link.snapshot().info.autoRefreshPaused)
    }
  }

  @Test(arguments: Kind.allCases)
  func verifyFindsACopyDamagedOnDisk(kind: Kind) async throws {
    try await Self.withLink(kind) { link, engine, _, dir in
      _ = try await link.refresh(["flags"])
      let intact = try await link.verify([])
      #expect(intact.map(\.asset) == ["flags", "motd"])
      #expect(intact.first?.checked == true && intact.first?.problem == nil)
      #expect(intact.last?.checked == false)
      // Same length, other bytes: only reading every byte finds it.
      let sha = try #require(await engine.status("flags")?.sha256)
      let blob = try #require(Self.blobs(in: dir.cache).first { $0.hasSuffix(sha) })
      try Data(repeating: 0x20, count: Self.flags.count).write(to: URL(fileURLWithPath: blob))
      let damaged = try await link.verify(["flags"])
      #expect(damaged.count == 1)
      #expect(damaged.first?.problem != nil)
      #expect(await engine.status("flags")?.source != .cached)
    }
  }

  @Test(arguments: Kind.allCases)
  func updatesStartWithASnapshot(kind: Kind) async throws {
    try await Self.withLink(kind) { link, _, _, _ in
      let firstTwo = await Self.updates(of: link, count: kind == .socket ? 2 : 1)
      var first = firstTwo.first
      if kind == .socket {
        guard case .connected(let pid, _) = first else {
          Issue.record(
            "an attached link reports its connection first, got \(String(describing: first))")
          return
        }
        #expect(pid == getpid())
        first = firstTwo.last
      }
      guard case .event(.snapshot(let snapshot)) = first else {
        Issue.record("expected the engine's snapshot, got \(String(describing: first))")
        return
      }
      #expect(snapshot.assets.map(\.id) == ["flags", "motd"])
    }
  }

  @Test func anUnreachableEngineIsAnErrorNamingTheSocket() async throws {
    try await withTemporaryDirectory { dir in
      let link = SocketEngineLink(path: dir.url.appendingPathComponent("none.sock").path)
      do {
        try await link.open(only: nil, sweep: .none)
        Issue.record("a socket nobody serves was reached")
      } catch let error as EngineLinkError {
        guard case .unreachable(let reason) = error else {
          Issue.record("expected unreachable, got \(error)")
          return
        }
        #expect(reason.contains("none.sock"), "\(reason)")
      }
      await #expect(throws: EngineLinkError.self) { try await link.snapshot() }
    }
  }

  /// The first `count` updates of `link` (fewer if the stream ends).
  static func updates(of link: some EngineLink, count: Int) async -> [EngineLinkUpdate] {
    var found: [EngineLinkUpdate] = []
    for await update in await link.updates() {
      found.append(update)
      if found.count == count { break }
    }
    return found
  }

  /// Every file under the cache's objects folder.
  static func blobs(in cache: URL) -> [String] {
    let root = cache.appendingPathComponent(CacheLayout.objects).path
    let found = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
    return found.map { root + "/" + $0 }
  }
}
