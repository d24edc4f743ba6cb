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
  /// The folder's lock held through a descriptor of its own, as another process holds it.
  final class Holder {
    private var fd: Int32

    init(_ path: String) throws {
      fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      guard fd >= 0, flock(fd, LOCK_EX | LOCK_NB) == 0 else {
        throw POSIXError(.EBUSY)
      }
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
        guard case .busy(let folder, _) = error else {
          Issue.record("unexpected \(error)")
          return
        }
        #expect(folder == f.metadataDir)
        #expect(error.description.contains("is held by another refresh; gave up after 200ms"))
        #expect(error.refusalReason == nil)  // not a refusal: the targets verified last stay
      }
      #expect(await f.origin.allRequests().isEmpty)
      #expect(try f.metadataNames() == ["root.json"])

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
}
