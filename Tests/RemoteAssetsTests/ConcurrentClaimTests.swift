import AssetWatchTestKit
import Foundation
import Synchronization
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// Several processes (here: threads, each opening its own store) claiming one new cache folder
/// at once all succeed, and none ever sees a half-made ownership marker.
@Suite struct ConcurrentClaimTests {
  /// Opens a store at `root` on `count` threads released together; returns each open's error.
  static func openTogether(_ root: URL, count: Int) async -> [String] {
    let arrived = Atomic<Int>(0)
    let errors = Mutex<[String]>([])
    let finished = Atomic<Int>(0)
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      // Plain threads, not the cooperative pool: they spin at the gate and block on disk.
      for _ in 0..<count {
        let thread = Thread {
          arrived.add(1, ordering: .sequentiallyConsistent)
          while arrived.load(ordering: .sequentiallyConsistent) < count { sched_yield() }
          do {
            _ = try CacheStore(root: root)
          } catch {
            errors.withLock { $0.append("\(error)") }
          }
          if finished.add(1, ordering: .sequentiallyConsistent).newValue == count {
            done.resume()
          }
        }
        thread.start()
      }
    }
    return errors.withLock { $0 }
  }

  @Test func manyOpenersOfANewFolderAllClaimIt() async throws {
    try await withTemporaryDirectory { dir in
      for round in 0..<60 {
        let root = dir.url.appendingPathComponent("cache-\(round)")
        let errors = await Self.openTogether(root, count: 8)
        #expect(errors.isEmpty, "round \(round): \(errors)")
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path)
        #expect(names.contains(CacheLayout.marker), "round \(round): \(names)")
        let marker = try String(
          contentsOf: root.appendingPathComponent(CacheLayout.marker), encoding: .utf8)
        #expect(marker == CacheLayout.markerContent)
      }
    }
  }

  @Test func anOlderReleasesFolderIsAdoptedByRacingOpenersWithoutLosingAnything() async throws {
    try await withTemporaryDirectory { dir in
      for round in 0..<20 {
        let root = dir.url.appendingPathComponent("old-\(round)")
        let sha = String(repeating: "ab", count: 32)
        try dir.file("old-\(round)/objects/\(sha)", "blob")
        try dir.file("old-\(round)/entries/flags.json", "{}")
        try dir.file("old-\(round)/manifest.json", "{}")
        let errors = await Self.openTogether(root, count: 6)
        #expect(errors.isEmpty, "round \(round): \(errors)")
        #expect(
          FileManager.default.fileExists(atPath: root.appendingPathComponent("CACHEDIR.TAG").path))
        #expect(
          try String(contentsOf: root.appendingPathComponent("objects/\(sha)"), encoding: .utf8)
            == "blob")
        #expect(
          try String(contentsOf: root.appendingPathComponent("entries/flags.json"), encoding: .utf8)
            == "{}")
      }
    }
  }

  /// The moment the race used to fail at, made on purpose: another claimer's marker temp file
  /// and no marker yet.
  @Test func aFolderHoldingOnlyAnotherClaimersMarkerTempIsClaimed() throws {
    try withTemporaryDirectory { dir in
      try dir.file("c/CACHEDIR.TAG.1234567.tmp", "Signature: 8a47")
      let store = try CacheStore(root: dir.url.appendingPathComponent("c"))
      #expect(!store.adopted)
      #expect(
        FileManager.default.fileExists(
          atPath: dir.url.appendingPathComponent("c/CACHEDIR.TAG").path)
      )
    }
  }

  /// A marker temp left by a claimer killed before its rename is swept like any interrupted write.
  @Test func theSweepRemovesAnInterruptedMarkerTemp() throws {
    try withTemporaryDirectory { dir in
      let store = try CacheStore(root: dir.url.appendingPathComponent("c"))
      try dir.file("c/CACHEDIR.TAG.42.tmp", "Sig")
      let report = try #require(try store.sweepWhenFree(keep: []))
      #expect(report.temps == 1)
      #expect(
        !FileManager.default.fileExists(
          atPath: dir.url.appendingPathComponent("c/CACHEDIR.TAG.42.tmp").path))
      #expect(
        FileManager.default.fileExists(
          atPath: dir.url.appendingPathComponent("c/CACHEDIR.TAG").path))
    }
  }
}
