import AssetWatchTestKit
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// A file's times can be anything a file system holds (tmpfs: any `Int64` of seconds; ext4:
/// up to the year 2446): reading such a file, formatting its date and stamping it never trap.
@Suite struct FarFileTimeTests {
  /// A folder on tmpfs, where any time can be set.
  static let farFolder = "/dev/shm"

  /// Whether the file tests run: when `farFolder` takes the farthest times, and always under CI
  /// (`CI=true`), where a `farFolder` that does not fails them instead of skipping them.
  /// Elsewhere, as on a system without a writable tmpfs there, they are skipped: the pure tests
  /// below still cover the arithmetic.
  static var fileTestsRun: Bool { ExternalTool.isCI || farTimesSettable }

  /// Whether `farFolder` takes the farthest times.
  static let farTimesSettable: Bool = {
    let probe = "\(farFolder)/aw-far-probe-\(UUID().uuidString)"
    guard FileManager.default.createFile(atPath: probe, contents: Data()) else { return false }
    defer { unlink(probe) }
    return setTimes(probe, seconds: .max) && setTimes(probe, seconds: .min)
  }()

  /// Sets `path`'s access and modification times to `seconds`; whether the file system kept
  /// exactly that (some clamp to their range instead of refusing).
  static func setTimes(_ path: String, seconds: Int64) -> Bool {
    var times = [
      timespec(tv_sec: Int(seconds), tv_nsec: 0), timespec(tv_sec: Int(seconds), tv_nsec: 0),
    ]
    guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { return false }
    var info = stat()
    return stat(path, &info) == 0 && Int64(info.st_mtim.tv_sec) == seconds
  }

  /// The body of every far file.
  static let body = Data(#"{"far": true}"#.utf8)

  /// A folder of its own under ``farFolder`` holding `far.json` (``body``) modified at
  /// `seconds` since 1970; the caller removes the folder.
  static func farFile(seconds: Int64) throws -> (folder: URL, file: URL) {
    try #require(
      farTimesSettable, "\(farFolder) does not hold the farthest times (needs a writable tmpfs)")
    let folder = URL(fileURLWithPath: "\(farFolder)/aw-far-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("far.json")
    try body.write(to: file)
    try #require(setTimes(file.path, seconds: seconds))
    return (folder, file)
  }

  static let latest = "Fri, 31 Dec 9999 23:59:59 GMT"
  static let earliest = "Mon, 01 Jan 0001 00:00:00 GMT"

  @Test(
    .enabled(if: fileTestsRun, "needs a tmpfs at /dev/shm that holds any time"),
    arguments: [Int64.max, .min, 1 << 40, -(1 << 40)])
  func aFileWithAFarModificationTimeIsRead(seconds: Int64) async throws {
    let (folder, file) = try Self.farFile(seconds: seconds)
    defer { try? FileManager.default.removeItem(at: folder) }
    try await withTemporaryDirectory { dir in
      let fetcher = FileFetcher()
      let sink = try makeSink(in: dir.url, maxBytes: 1 << 20, expectedSize: nil)
      defer { sink.discard() }
      guard
        case .downloaded(let metadata) = try await fetcher.fetch(
          FetchRequest(url: file), into: sink)
      else {
        Issue.record("expected a download")
        return
      }
      #expect(sink.bytesWritten == Int64(Self.body.count))
      #expect(metadata.lastModified == (seconds > 0 ? Self.latest : Self.earliest))
      let etag = try #require(metadata.etag)
      let again = try makeSink(in: dir.url, maxBytes: 1 << 20, expectedSize: nil)
      defer { again.discard() }
      let second = try await fetcher.fetch(FetchRequest(url: file, etag: etag), into: again)
      #expect(second == .notModified(metadata), "an unchanged file keeps its ETag")
    }
  }

  /// The engine refreshes such a file end to end (entry written, freshness noted).
  @Test(.enabled(if: fileTestsRun, "needs a tmpfs at /dev/shm that holds any time"))
  func theEngineRefreshesAFileFromTheFarFuture() async throws {
    let (folder, file) = try Self.farFile(seconds: .max)
    defer { try? FileManager.default.removeItem(at: folder) }
    let asset = AssetDefinition(id: "far", remote: file, format: .json)
    try await withEngine([asset]) { engine, _ throws in
      #expect(await engine.refresh("far").isUpdated)
      #expect(try await engine.data("far") == Self.body)
      #expect(await engine.refresh("far") == .notModified)
    }
  }

  @Test func httpDateFormatIsTotal() {
    let cases: [(TimeInterval, String)] = [
      (1e300, Self.latest), (.infinity, Self.latest), (.greatestFiniteMagnitude, Self.latest),
      (TimeInterval(Int64.max), Self.latest), (253_402_300_800, Self.latest),
      (-1e300, Self.earliest), (-.infinity, Self.earliest),
      (TimeInterval(Int64.min), Self.earliest), (-62_135_596_801, Self.earliest),
      (.nan, "Thu, 01 Jan 1970 00:00:00 GMT"),
    ]
    for (interval, expected) in cases {
      #expect(HTTPDate.format(Date(timeIntervalSince1970: interval)) == expected, "\(interval)")
    }
    // The ends themselves are exact and read back.
    let last = Date(timeIntervalSince1970: 253_402_300_799)
    #expect(HTTPDate.format(last) == Self.latest)
    #expect(HTTPDate.parse(Self.latest) == last)
    let first = Date(timeIntervalSince1970: -62_135_596_800)
    #expect(HTTPDate.format(first) == Self.earliest)
    #expect(HTTPDate.parse(Self.earliest) == first)
  }

  @Test func blobStampsOfFarTimesSaturate() {
    var info = stat()
    info.st_mtim = timespec(tv_sec: Int.max, tv_nsec: 999_999_999)
    info.st_ctim = timespec(tv_sec: Int.min, tv_nsec: 0)
    var stamp = BlobStamp(info)
    #expect(stamp.modified == .max)
    #expect(stamp.changed == .min)
    // 2300-01-01: past the range of Int64 nanoseconds (2262), within ext4's (2446).
    info.st_mtim = timespec(tv_sec: 10_413_792_000, tv_nsec: 5)
    // The last nanosecond Int64 holds, and the one after it.
    info.st_ctim = timespec(tv_sec: 9_223_372_036, tv_nsec: 854_775_807)
    stamp = BlobStamp(info)
    #expect(stamp.modified == .max)
    #expect(stamp.changed == .max)
    info.st_ctim = timespec(tv_sec: 9_223_372_036, tv_nsec: 854_775_808)
    #expect(BlobStamp(info).changed == .max)
    info.st_ctim = timespec(tv_sec: 9_223_372_036, tv_nsec: 854_775_806)
    #expect(BlobStamp(info).changed == .max - 1)
    // Ordinary times are exact.
    info.st_mtim = timespec(tv_sec: 1_700_000_000, tv_nsec: 123)
    info.st_ctim = timespec(tv_sec: -5, tv_nsec: 7)
    stamp = BlobStamp(info)
    #expect(stamp.modified == 1_700_000_000_000_000_123)
    #expect(stamp.changed == -4_999_999_993)
  }
}
