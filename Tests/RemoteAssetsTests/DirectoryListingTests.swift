import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

#if canImport(Glibc)
  import Glibc
#endif

/// A folder's names as `readdir` gives them: every length read exactly, and never a byte past
/// the entry (the kernel packs entries by their length; a name read as the declared
/// `char[256]` crossed into unmapped memory and crashed a listing of 3,000 entries).
@Suite struct DirectoryListingTests {
  @Test func everyNameLengthIsListedExactly() throws {
    try withTemporaryDirectory { (dir: TemporaryDirectory) in
      var expected: Set<String> = []
      for length in 1...255 {
        let name = String(repeating: "n", count: length - 1) + String(length % 10)
        FileManager.default.createFile(
          atPath: dir.url.appendingPathComponent(name).path, contents: nil)
        expected.insert(name)
      }
      try FileManager.default.createDirectory(
        at: dir.url.appendingPathComponent("sub"), withIntermediateDirectories: false)
      let listed = try DirectoryHandle.open(path: dir.url.path).list()
      #expect(Set(listed.filter(\.isFile).map(\.name)) == expected)
      #expect(listed.filter { !$0.isFile }.map(\.name) == ["sub"])
    }
  }

  /// An entry whose name ends where readable memory ends, a page that cannot be read after it:
  /// the name is read up to its NUL and no further (a read past it is a SIGSEGV, which ends the
  /// test run).
  @Test func aNameEndingAtTheEdgeOfReadableMemoryIsReadWithoutCrossingIt() throws {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let base = try #require(
      mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
    #expect(base != MAP_FAILED)
    defer { munmap(base, 2 * page) }
    #expect(mprotect(base + page, page, PROT_NONE) == 0)

    let nameOffset = try #require(MemoryLayout<dirent>.offset(of: \dirent.d_name))
    let typeOffset = try #require(MemoryLayout<dirent>.offset(of: \dirent.d_type))
    // A record as the kernel packs it: the header, the name and its NUL, 8-byte aligned, here
    // ending exactly at the unreadable page.
    let name = String(repeating: "x", count: 32 - nameOffset - 1 - 5) + ".json"
    let recordLength = nameOffset + name.utf8.count + 1
    #expect(recordLength % 8 == 0)
    let record = base + page - recordLength
    record.storeBytes(of: UInt8(DT_REG), toByteOffset: typeOffset, as: UInt8.self)
    for (index, byte) in name.utf8.enumerated() {
      record.storeBytes(of: byte, toByteOffset: nameOffset + index, as: UInt8.self)
    }
    record.storeBytes(of: 0, toByteOffset: nameOffset + name.utf8.count, as: UInt8.self)

    let entry = record.bindMemory(to: dirent.self, capacity: 1)
    let read = DirectoryHandle.entry(entry)
    #expect(read.name == name)
    #expect(read.isFile)
  }
}
