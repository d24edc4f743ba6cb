import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// `DirectoryHandle.openFileWithStatus` opens with `O_NONBLOCK` so that a FIFO planted at a name
/// is refused without blocking, and clears the flag only where a descriptor's writes could
/// see it: a file the open creates exclusively never has it, a file opened to be read keeps it
/// on Linux (which ignores it there), and a file opened to be written loses it.
@Suite(.timeLimit(.minutes(1))) struct OpenFlagsTests {
  private func nonBlocking(_ fd: Int32) -> Bool { fcntl(fd, F_GETFL) & O_NONBLOCK != 0 }

  @Test func eachKindOfOpenHasTheFlagsItsUseNeeds() throws {
    try withTemporaryDirectory { (dir: TemporaryDirectory) in
      let folder = try DirectoryHandle.open(path: dir.url.path)
      let created = try folder.openFileWithStatus("new", O_RDWR | O_CREAT | O_EXCL)
      defer { close(created.fd) }
      #expect(!nonBlocking(created.fd))
      #expect(created.info.st_mode & S_IFMT == S_IFREG)
      #expect(write(created.fd, "bytes", 5) == 5)

      let written = try folder.openFileWithStatus("new", O_RDWR)
      defer { close(written.fd) }
      #expect(!nonBlocking(written.fd))

      let read = try folder.openFileWithStatus("new", O_RDONLY)
      defer { close(read.fd) }
      #expect(nonBlocking(read.fd) == DirectoryHandle.readsIgnoreNonBlocking)
      var bytes = [UInt8](repeating: 0, count: 8)
      #expect(Glibc.read(read.fd, &bytes, 8) == 5)
      #expect(try folder.readWithStatus("new")?.data == Data("bytes".utf8))
    }
  }

  /// A FIFO at the name: a read or write open is refused at once (it would block until a
  /// writer or reader came), and an exclusive create fails because the name is taken.
  @Test func aFIFOAtTheNameIsRefusedWithoutBlocking() throws {
    try withTemporaryDirectory { (dir: TemporaryDirectory) in
      #expect(mkfifo(dir.url.appendingPathComponent("fifo").path, 0o600) == 0)
      let folder = try DirectoryHandle.open(path: dir.url.path)
      for flags in [O_RDONLY, O_RDWR] {
        let error = #expect(throws: StorageError.self) {
          _ = try folder.openFileWithStatus("fifo", flags)
        }
        #expect(error?.code == EINVAL || error?.code == ENXIO)
      }
      let taken = #expect(throws: StorageError.self) {
        _ = try folder.openFileWithStatus("fifo", O_RDWR | O_CREAT | O_EXCL)
      }
      #expect(taken?.code == EEXIST)
    }
  }
}
