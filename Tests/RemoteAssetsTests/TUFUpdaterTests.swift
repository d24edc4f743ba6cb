import AssetWatchTestKit
import DemoOrigin
import Foundation
import TUF
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// The TUF updater against repositories written by python-tuf (`make_updater_repo.py`), served
/// by a `LoopbackOrigin` on 127.0.0.1, with a real metadata folder.
@Suite struct TUFUpdaterTests {
  /// A metadata folder initialised with the trusted root, an origin, and an updater factory.
  struct Fixture {
    let origin: LoopbackOrigin
    let dir: TemporaryDirectory
    let fetcher: HTTPFetcher

    var metadataDir: String { dir.url("metadata").path }
    var targetDir: String { dir.url("targets").path }
    var metadataURL: String { "http://127.0.0.1:\(origin.port)/metadata" }
    var targetsURL: String { "http://127.0.0.1:\(origin.port)/targets/" }

    func updater(_ settings: TUFUpdater.Settings = TUFUpdater.Settings()) throws -> TUFUpdater {
      try TUFUpdater(
        metadataDirectory: metadataDir, metadataURL: metadataURL, fetcher: fetcher,
        settings: settings)
    }

    func trusted(_ role: String) -> Data? {
      try? Data(contentsOf: dir.url("metadata").appendingPathComponent("\(role).json"))
    }

    /// The folder's files but its lock file (`.lock`, there once anything took the lock).
    func metadataNames() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: metadataDir).filter {
        $0 != FolderLock.fileName
      }.sorted()
    }

    static func with(state: String = "initial", _ body: (Fixture) async throws -> Void)
      async throws
    {
      try await withOrigin { origin in
        try await TUFRepositoryFixture.serve(state, on: origin)
        try await withTemporaryDirectory(prefix: "aw-tuf") { dir in
          try await TUFUpdater.initialize(
            metadataDirectory: dir.url("metadata").path,
            trustedRoot: [UInt8](Data(contentsOf: TUFRepositoryFixture.trustedRootURL())))
          let fetcher = HTTPFetcher()
          do {
            try await body(Fixture(origin: origin, dir: dir, fetcher: fetcher))
          } catch {
            try? await fetcher.shutdown()
            throw error
          }
          try await fetcher.shutdown()
        }
      }
    }
  }

  @Test func firstRefreshPersistsTheTopLevelMetadata() async throws {
    try await Fixture.with { f in
      try await f.updater().refresh()
      #expect(
        try f.metadataNames() == ["root.json", "snapshot.json", "targets.json", "timestamp.json"])
      #expect(
        f.trusted("root") == (try TUFRepositoryFixture.bytes("initial", "metadata/1.root.json")))
      #expect(
        f.trusted("timestamp")
          == (try TUFRepositoryFixture.bytes("initial", "metadata/timestamp.json")))
      #expect(
        f.trusted("snapshot")
          == (try TUFRepositoryFixture.bytes("initial", "metadata/1.snapshot.json")))
      #expect(
        f.trusted("targets")
          == (try TUFRepositoryFixture.bytes("initial", "metadata/1.targets.json")))
      // Consistent snapshots: versioned names were asked for; root 2 was probed (404).
      #expect(await f.origin.requestCount(path: "/metadata/2.root.json") == 1)
      #expect(await f.origin.requestCount(path: "/metadata/1.snapshot.json") == 1)
      #expect(await f.origin.requestCount(path: "/metadata/snapshot.json") == 0)
      for name in try f.metadataNames() {
        let attributes = try FileManager.default.attributesOfItem(
          atPath: f.dir.url("metadata").appendingPathComponent(name).path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(name)")
      }
    }
  }

  @Test func unchangedRefreshCostsOneTimestampRequest() async throws {
    try await Fixture.with { f in
      try await f.updater().refresh()
      let before = await f.origin.allRequests().count
      try await f.updater().refresh()
      let after = await f.origin.allRequests().map(\.path).suffix(from: before)
      // The next root is probed, then one timestamp request; snapshot and targets come from
      // the folder.
      #expect(Array(after) == ["/metadata/2.root.json", "/metadata/timestamp.json"])
    }
  }

  @Test func rootRotationIsPersisted() async throws {
    try await Fixture.with { f in
      try await f.updater().refresh()
      try await TUFRepositoryFixture.serve("rotated", on: f.origin)
      try await f.updater().refresh()
      #expect(
        f.trusted("root") == (try TUFRepositoryFixture.bytes("rotated", "metadata/2.root.json")))
      #expect(
        f.trusted("timestamp")
          == (try TUFRepositoryFixture.bytes("rotated", "metadata/timestamp.json")))
      #expect(await f.origin.requestCount(path: "/metadata/3.root.json") == 1)
      // Only complete files under role names: no temp file left behind.
      #expect(
        try f.metadataNames() == ["root.json", "snapshot.json", "targets.json", "timestamp.json"])
    }
  }

  @Test func fastForwardRecoveryAfterTimestampAndSnapshotKeyRotation() async throws {
    try await Fixture.with(state: "rotated") { f in
      try await f.updater().refresh()
      // The repository rotates the timestamp and snapshot keys and restarts their versions at 1
      // (lower than the trusted 2): accepted only because the cached copies are deleted.
      try await TUFRepositoryFixture.serve("ff", on: f.origin)
      try await f.updater().refresh()
      #expect(f.trusted("root") == (try TUFRepositoryFixture.bytes("ff", "metadata/3.root.json")))
      #expect(
        f.trusted("timestamp") == (try TUFRepositoryFixture.bytes("ff", "metadata/timestamp.json")))
      #expect(
        f.trusted("snapshot") == (try TUFRepositoryFixture.bytes("ff", "metadata/1.snapshot.json")))
    }
  }

  @Test func endlessTimestampIsCutAtTheLimit() async throws {
    try await Fixture.with { f in
      try await f.updater().refresh()
      let trusted = f.trusted("timestamp")
      // A chunked body without a length, far longer than any timestamp.
      await f.origin.setHandler("/metadata/timestamp.json") { _ in
        OriginResponse(
          body: .generated(GeneratedBytes(length: 1 << 30, seed: 7)),
          framing: .chunked(chunkSize: 4096))
      }
      do {
        try await f.updater().refresh()
        Issue.record("an endless timestamp was accepted")
      } catch let error as TUFUpdateError {
        guard case .network(let file, let fetchError) = error else {
          Issue.record("unexpected \(error)")
          return
        }
        #expect(file == "timestamp.json")
        #expect(fetchError.kind == .tooLarge)
        #expect(fetchError.message.contains("\(TUFLimits.maxTimestampSize)"))
      }
      #expect(f.trusted("timestamp") == trusted)
      #expect(
        try f.metadataNames() == ["root.json", "snapshot.json", "targets.json", "timestamp.json"])
    }
  }

  @Test func rollbackIsRefusedAndTheTrustedFilesStay() async throws {
    try await Fixture.with(state: "bumped") { f in
      try await f.updater().refresh()
      let names = try f.metadataNames()
      let before = names.map { f.trusted(String($0.dropLast(5))) }
      try await TUFRepositoryFixture.serve("initial", on: f.origin)
      do {
        try await f.updater().refresh()
        Issue.record("a rolled back timestamp was accepted")
      } catch let error as TUFUpdateError {
        guard case .verification(let tufError) = error else {
          Issue.record("unexpected \(error)")
          return
        }
        #expect(tufError == .versionRollback(role: "timestamp", offered: 1, trusted: 2))
        #expect(error.description == "timestamp.json version 1 is older than the trusted 2.")
      }
      #expect(try f.metadataNames() == names)
      #expect(names.map { f.trusted(String($0.dropLast(5))) } == before)
    }
  }

  /// The target folder is the user's (`--target-dir`): a download sweeps only the partials a
  /// crashed download left (names of the client's own), never a file of the user's that looks
  /// like a temp file.
  @Test func aDownloadLeavesTheUsersFilesInTheTargetFolder() async throws {
    try await Fixture.with { f in
      try FileManager.default.createDirectory(
        atPath: f.targetDir, withIntermediateDirectories: true)
      let mine = f.dir.url("targets").appendingPathComponent("notes.2024.tmp")
      try Data("mine".utf8).write(to: mine)
      let leftover = f.dir.url("targets").appendingPathComponent(".7.part")
      try Data("cut".utf8).write(to: leftover)
      let old = Date(timeIntervalSinceNow: -3600)
      for file in [mine, leftover] {
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: file.path)
      }
      let updater = try f.updater()
      try await updater.refresh()
      let target = try await updater.target(path: "files/hello.txt")
      _ = try await updater.download(target, baseURL: f.targetsURL, into: f.targetDir)
      #expect(FileManager.default.fileExists(atPath: mine.path), "the user's file stays")
      #expect(!FileManager.default.fileExists(atPath: leftover.path), "an unheld partial goes")
    }
  }

  @Test func targetsDownloadUnderConsistentSnapshots() async throws {
    try await Fixture.with { f in
      let contents = try TUFRepositoryFixture.targets()
      let updater = try f.updater()
      try await updater.refresh()
      for path in ["files/hello.txt", "project/data.bin"] {
        let target = try await updater.target(path: path)
        let stored = try await updater.download(target, baseURL: f.targetsURL, into: f.targetDir)
        #expect(
          stored
            == f.dir.url("targets").appendingPathComponent(TUFFileNames.targetFile(path: path)).path
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: stored)) == contents[path])
        let attributes = try FileManager.default.attributesOfItem(atPath: stored)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // Fetched under its hash-prefixed name.
        let sha256 = target.hashes["sha256"]!
        let dir = path.split(separator: "/").first!
        let name = path.split(separator: "/").last!
        #expect(await f.origin.requestCount(path: "/targets/\(dir)/\(sha256).\(name)") == 1)
      }
      // The delegated role was fetched (versioned name) and persisted under its role name.
      #expect(await f.origin.requestCount(path: "/metadata/1.project.json") == 1)
      #expect(
        f.trusted("project")
          == (try TUFRepositoryFixture.bytes("initial", "metadata/1.project.json")))
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: f.targetDir).sorted()
          == ["files%2Fhello.txt", "project%2Fdata.bin"])

      // A second run: the delegated role comes from the folder, the targets are not fetched again.
      let requests = await f.origin.allRequests().count
      let again = try f.updater()
      for path in ["files/hello.txt", "project/data.bin"] {
        let target = try await again.target(path: path)
        _ = try await again.download(target, baseURL: f.targetsURL, into: f.targetDir)
      }
      let later = await f.origin.allRequests().map(\.path).suffix(from: requests)
      #expect(Array(later) == ["/metadata/2.root.json", "/metadata/timestamp.json"])
    }
  }

  @Test func targetWithOtherBytesIsRefusedAndNotStored() async throws {
    try await Fixture.with { f in
      let updater = try f.updater()
      let target = try await updater.target(path: "files/hello.txt")
      let served = "/targets/files/\(target.hashes["sha256"]!).hello.txt"
      // Same length, other bytes.
      var evil = try #require(try TUFRepositoryFixture.targets()["files/hello.txt"])
      evil[0] ^= 0xFF
      await f.origin.setResource(served, body: evil, contentType: "text/plain")
      do {
        _ = try await updater.download(target, baseURL: f.targetsURL, into: f.targetDir)
        Issue.record("a target with other bytes was stored")
      } catch let error as TUFUpdateError {
        guard case .verification(let tufError) = error else {
          Issue.record("unexpected \(error)")
          return
        }
        #expect(tufError == .targetHashMismatch(path: "files/hello.txt", algorithm: "sha256"))
      }
      // Nothing stored, no partial left.
      #expect(try FileManager.default.contentsOfDirectory(atPath: f.targetDir) == [])

      // Longer than the metadata says: cut at the length, not stored either.
      await f.origin.setResource(served, body: evil + Data("more".utf8), contentType: "text/plain")
      await #expect(throws: TUFUpdateError.self) {
        _ = try await updater.download(target, baseURL: f.targetsURL, into: f.targetDir)
      }
      #expect(try FileManager.default.contentsOfDirectory(atPath: f.targetDir) == [])
    }
  }

  @Test func anInterruptedRootWriteLeavesThePreviousRootTrusted() async throws {
    try await Fixture.with { f in
      try await f.updater().refresh()
      let root1 = f.trusted("root")
      // What a crash in the middle of persisting root 2 leaves: the store writes a temp file,
      // fsyncs it and only then renames it over root.json, so the half-written bytes sit under a
      // temp name that no role file matches.
      let root2 = try TUFRepositoryFixture.bytes("rotated", "metadata/2.root.json")
      let temp = f.dir.url("metadata").appendingPathComponent("root.json.12345.tmp")
      try root2.prefix(root2.count / 2).write(to: temp)
      // Leftovers of an older crash: an hour-old temp file and an abandoned partial download.
      let old = f.dir.url("metadata").appendingPathComponent("timestamp.json.777.tmp")
      try Data("{".utf8).write(to: old)
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: old.path)
      try Data("{".utf8).write(to: f.dir.url("metadata").appendingPathComponent(".42.part"))
      // The previous root still loads and verifies: a refresh of the unchanged repository works.
      try await f.updater().refresh()
      #expect(f.trusted("root") == root1)
      // The old leftovers are swept; the recent temp file is left alone.
      #expect(
        try f.metadataNames() == [
          "root.json", "root.json.12345.tmp", "snapshot.json", "targets.json", "timestamp.json",
        ])

      // A completed write renames a complete file into place.
      let folder = try TUFMetadataFolder(path: f.metadataDir, create: false)
      try folder.persist([UInt8](root2), role: "root")
      #expect(f.trusted("root") == root2)
      let names = try f.metadataNames()
      #expect(names.filter { $0.hasSuffix(".tmp") } == ["root.json.12345.tmp"])
    }
  }

  @Test func aCachedDelegatedRoleIsVerifiedAgainstTheDelegatorOfALaterLookup() async throws {
    try await Fixture.with(state: "diamond") { f in
      let updater = try f.updater()
      // Through parent-a, release (signed by parent-a's key for it) is trusted and persisted.
      let a = try await updater.target(path: "team-a/app.json")
      #expect(a.length == Int64("release a".utf8.count))
      #expect(f.trusted("release") != nil)
      // Through parent-b, the same release metadata (cached in memory and on disk) is verified
      // again against parent-b's key for it, and refused.
      for lookup in [updater, try f.updater()] {
        do {
          _ = try await lookup.target(path: "team-b/app.json")
          Issue.record("release was trusted through parent-b")
        } catch let error as TUFUpdateError {
          guard case .verification(let tufError) = error else {
            Issue.record("unexpected \(error)")
            continue
          }
          #expect(tufError == .unsigned(role: "release", valid: 0, threshold: 1))
        }
      }
    }
  }

  @Test func missingTargetAndMissingRootAreErrors() async throws {
    try await Fixture.with { f in
      let updater = try f.updater()
      await #expect(throws: TUFUpdateError.self) {
        _ = try await updater.target(path: "files/absent.txt")
      }
      try FileManager.default.removeItem(atPath: f.metadataDir + "/root.json")
      do {
        try await f.updater().refresh()
        Issue.record("a refresh without a trusted root succeeded")
      } catch let error as TUFUpdateError {
        guard case .noTrustedRoot = error else {
          Issue.record("unexpected \(error)")
          return
        }
      }
    }
  }

  @Test func fileNamesAreSingleSafeComponents() {
    #expect(TUFFileNames.metadataFile(role: "targets") == "targets.json")
    #expect(TUFFileNames.metadataFile(role: "a/b") == "a%2Fb.json")
    #expect(TUFFileNames.metadataFile(role: "../x") == "%2E.%2Fx.json")
    #expect(TUFFileNames.metadataFile(role: "?") == "%3F.json")
    #expect(TUFFileNames.targetFile(path: "..") == "%2E.")
    #expect(TUFFileNames.targetFile(path: "a%2Fb") != TUFFileNames.targetFile(path: "a/b"))
    #expect(TUFFileNames.targetFile(path: "dir/file name") == "dir%2Ffile%20name")
    let long = TUFFileNames.targetFile(path: String(repeating: "é", count: 300))
    #expect(long.hasPrefix("sha256-") && long.utf8.count < 255)
    #expect(TUFFileNames.remoteMetadata(role: "a/b", version: 3) == "3.a%2Fb.json")
    #expect(TUFFileNames.remoteTarget(path: "d/n x", hashPrefixed: nil) == "d/n%20x")
    for name in ["", ".", "..", "a/b", "/", "\u{0}"] {
      let file = TUFFileNames.targetFile(path: name)
      #expect(!file.contains("/") && file != "." && file != ".." && !file.isEmpty)
    }
  }
}
