import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// One writer at a time in a TUF metadata folder: processes sharing a cache take turns, so none
/// writes back a root or timestamp another has rotated past. The folder is held the way another
/// process holds it (its own descriptor, `flock`), against python-tuf repositories on a
/// `LoopbackOrigin`.
@Suite struct TUFFolderLockTests {
  /// The folder's lock held through a descriptor of its own, as another process holds it
  /// (`4242 holder-test` written in, as a holder names itself).
  final class Holder {
    private var fd: Int32

    /// Takes the folder's lock. An updater's descriptor of the lock file, closed a moment ago,
    /// can still hold it for a while: a child process another test spawned between the open
    /// and the close shares the locked file until its `exec` closes the descriptor (seen once
    /// in CI: `EBUSY` right after a seed had returned). So the lock is tried until it is free,
    /// for at most 10 s, as `FolderLock` itself waits.
    init(_ path: String) throws {
      fd = open(path + "/" + FolderLock.fileName, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
      guard fd >= 0 else { throw POSIXError(.EBADF) }
      let deadline = ContinuousClock.now + .seconds(10)
      while flock(fd, LOCK_EX | LOCK_NB) != 0 {
        guard ContinuousClock.now < deadline else {
          close(fd)
          throw POSIXError(.EBUSY)
        }
        usleep(2_000)
      }
      var name = Array("4242 holder-test\n".utf8)
      _ = ftruncate(fd, 0)
      _ = pwrite(fd, &name, name.count, 0)
    }

    func release() {
      if fd >= 0 { close(fd) }
      fd = -1
    }

    deinit { release() }
  }

  static let topLevel = ["root.json", "snapshot.json", "targets.json", "timestamp.json"]

  @Test func aRefreshGivesUpOnAFolderAnotherHoldsHavingFetchedNothing() async throws {
    try await TUFUpdaterTests.Fixture.with { f in
      let holder = try Holder(f.metadataDir)
      var settings = TUFUpdater.Settings()
      settings.lockTimeout = .milliseconds(200)
      let updater = try f.updater(settings)
      do {
        try await updater.refresh()
        Issue.record("a refresh ran while another held the folder")
      } catch let error as TUFUpdateError {
        guard case .busy(let folder, _, _) = error else {
          Issue.record("unexpected \(error)")
          return
        }
        #expect(folder == f.metadataDir)
        #expect(
          error.description.contains(
            "is held by another refresh (process 4242 (holder-test)); gave up after 200ms"),
          "\(error)")
        #expect(error.refusalReason == nil)  // not a refusal: the targets verified last stay
      }
      #expect(await f.origin.allRequests().isEmpty)
      #expect(try f.metadataNames() == ["root.json"])
      // Nothing but role files and the lock file: a TUF client reads only `*.json` there.
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: f.metadataDir).sorted() == [
          FolderLock.fileName, "root.json",
        ])

      holder.release()
      try await updater.refresh()
      #expect(try f.metadataNames() == Self.topLevel)
    }
  }

  /// Two refreshes at once on one folder run one after the other, and the second starts from
  /// what the first persisted: it asks only for the next root and the timestamp. Without the
  /// lock both start from the bare root and their requests interleave.
  @Test func twoRefreshesAtOnceTakeTurns() async throws {
    try await TUFUpdaterTests.Fixture.with { f in
      let (first, second) = (try f.updater(), try f.updater())
      async let a: Void = first.refresh()
      async let b: Void = second.refresh()
      _ = try await (a, b)
      let paths = await f.origin.allRequests().map(\.path)
      #expect(
        paths == [
          "/metadata/2.root.json", "/metadata/timestamp.json", "/metadata/1.snapshot.json",
          "/metadata/1.targets.json", "/metadata/2.root.json", "/metadata/timestamp.json",
        ])
      #expect(try f.metadataNames() == Self.topLevel)
    }
  }

  /// Seeding the shipped root decides and writes holding the folder: it waits for a refresh
  /// in progress elsewhere, keeps a root the folder rotated to, and takes a newer shipped one.
  @Test func seedingKeepsARotatedRootTakesANewerOneAndWaitsForTheFolder() async throws {
    try await TUFUpdaterTests.Fixture.with { f in
      try await TUFRepositoryFixture.serve("rotated", on: f.origin)
      try await f.updater().refresh()
      let rotated = try TUFRepositoryFixture.bytes("rotated", "metadata/2.root.json")
      #expect(f.trusted("root") == rotated)

      let shippedFirst = try [UInt8](Data(contentsOf: TUFRepositoryFixture.trustedRootURL()))
      #expect(
        try await TUFUpdater.seed(metadataDirectory: f.metadataDir, trustedRoot: shippedFirst)
          == false)
      #expect(f.trusted("root") == rotated)

      let newer = try [UInt8](TUFRepositoryFixture.bytes("ff", "metadata/3.root.json"))
      let holder = try Holder(f.metadataDir)
      do {
        _ = try await TUFUpdater.seed(
          metadataDirectory: f.metadataDir, trustedRoot: newer, lockTimeout: .milliseconds(100))
        Issue.record("seeded while another held the folder")
      } catch let error as TUFUpdateError {
        guard case .busy = error else {
          Issue.record("unexpected \(error)")
          return
        }
      }
      #expect(f.trusted("root") == rotated)
      holder.release()
      #expect(
        try await TUFUpdater.seed(metadataDirectory: f.metadataDir, trustedRoot: newer) == true)
      #expect(f.trusted("root") == Data(newer))
    }
  }

  /// A stored root that does not verify (a damaged file) is no anchor: the shipped root
  /// replaces it, where it would otherwise refuse every refresh for good.
  @Test func seedingReplacesAStoredRootThatDoesNotVerify() async throws {
    try await TUFUpdaterTests.Fixture.with { f in
      try Data("{\"signed\": {\"_type\": \"root\"".utf8).write(
        to: URL(fileURLWithPath: f.metadataDir + "/root.json"))
      let shipped = try [UInt8](Data(contentsOf: TUFRepositoryFixture.trustedRootURL()))
      #expect(
        try await TUFUpdater.seed(metadataDirectory: f.metadataDir, trustedRoot: shipped) == true)
      #expect(f.trusted("root") == Data(shipped))
      try await f.updater().refresh()
    }
  }

  /// `tuf-client init` stores its root holding the folder too.
  @Test func initWaitsForTheFolder() async throws {
    try await TUFUpdaterTests.Fixture.with { f in
      let before = f.trusted("root")
      let holder = try Holder(f.metadataDir)
      let newer = try [UInt8](TUFRepositoryFixture.bytes("ff", "metadata/3.root.json"))
      do {
        try await TUFUpdater.initialize(
          metadataDirectory: f.metadataDir, trustedRoot: newer, lockTimeout: .milliseconds(100))
        Issue.record("init wrote while another held the folder")
      } catch let error as TUFUpdateError {
        #expect(error.isBusy, "\(error)")
      }
      #expect(f.trusted("root") == before)
      holder.release()
      try await TUFUpdater.initialize(metadataDirectory: f.metadataDir, trustedRoot: newer)
      #expect(f.trusted("root") == Data(newer))
    }
  }

  /// A pinned length never lets a metadata fetch go past what the folder reads back.
  @Test func pinnedLengthsAreCappedAtTheFolderReadLimit() {
    #expect(TUFUpdater.fetchLimit(pinned: nil, default: 5_000) == 5_000)
    #expect(TUFUpdater.fetchLimit(pinned: 1_234, default: 5_000) == 1_234)
    #expect(
      TUFUpdater.fetchLimit(pinned: 10 << 30, default: 5_000) == TUFMetadataFolder.readLimit)
    #expect(TUFUpdater.fetchLimit(pinned: -1, default: 5_000) == 0)
  }
}
