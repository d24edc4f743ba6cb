import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// The commit lock's holder text ("pid name"): written when the lock file says something else,
/// left alone when it already names this process (a commit takes the lock for every group, and
/// rewriting the file waited for the flush of its page).
@Suite struct CacheLockHolderTests {
  /// What this process writes as the holder.
  static let ours = "\(getpid()) \(ProcessInfo.processInfo.processName)\n"

  @Test func theHolderIsWrittenOnceAndThenLeftAlone() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let fd = try Self.openLock(in: dir)
    defer { close(fd) }
    CacheLock.recordHolder(fd)
    #expect(Self.contents(fd) == Self.ours)
    #expect(CacheLock.holder(fd) == "process \(getpid()) (\(ProcessInfo.processInfo.processName))")

    // Stamped long ago: any write would make the stamp now.
    var old = [
      timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0),
    ]
    #expect(futimens(fd, &old) == 0)
    CacheLock.recordHolder(fd)
    var info = stat()
    #expect(fstat(fd, &info) == 0)
    #expect(info.st_mtim.tv_sec == 1_000_000_000, "the file was written again")
    #expect(Self.contents(fd) == Self.ours)
  }

  @Test(arguments: ["4242 a-holder-with-a-much-longer-name-than-this-one\n", "1 x\n", ""])
  func anotherHoldersTextIsReplacedWhole(_ theirs: String) throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let fd = try Self.openLock(in: dir)
    defer { close(fd) }
    let bytes = Array(theirs.utf8)
    #expect(pwrite(fd, bytes, bytes.count, 0) == bytes.count)
    CacheLock.recordHolder(fd)
    #expect(Self.contents(fd) == Self.ours)
  }

  private static func openLock(in dir: TemporaryDirectory) throws -> Int32 {
    let fd = open(dir.path + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw POSIXError(.EBADF) }
    return fd
  }

  private static func contents(_ fd: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 512)
    let n = pread(fd, &buffer, buffer.count, 0)
    return String(decoding: buffer.prefix(max(0, n)), as: UTF8.self)
  }
}
