import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a ``Publication`` into a repository folder so that a server serving the folder at any
/// moment serves a valid repository: each file is written to a temporary name in its folder,
/// fsynced, renamed over its final name and the folder fsynced; new targets and versioned
/// metadata first, `metadata/timestamp.json` (the one file that makes clients see the rest)
/// last. Interrupted anywhere before the timestamp, clients keep seeing the previous version;
/// the files already written are unreferenced and the next publish writes over them.
package struct RepositoryWriter: Sendable {
  package let folder: String
  /// Called before the timestamp is written (tests make it throw to play an interruption).
  package var beforeTimestamp: (@Sendable () throws -> Void)?

  package init(folder: String) { self.folder = folder }

  package func write(_ publication: Publication) throws {
    let timestamp = "metadata/timestamp.json"
    for (path, bytes) in publication.files where path != timestamp {
      try writeFile(path, bytes)
    }
    if let last = publication.files.last(where: { $0.path == timestamp }) {
      try beforeTimestamp?()
      try writeFile(timestamp, last.bytes)
    }
  }

  private func writeFile(_ relative: String, _ bytes: [UInt8]) throws(PublishError) {
    let path = (folder as NSString).appendingPathComponent(relative)
    let dir = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    } catch {
      throw PublishError.io("cannot create \(dir)")
    }
    let temp = (dir as NSString).appendingPathComponent(
      ".\((path as NSString).lastPathComponent).tmp-\(getpid())")
    let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw PublishError.io("cannot create \(temp): \(Self.lastError())") }
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { posixWrite(fd, $0.baseAddress! + offset, $0.count - offset) }
      guard n > 0 else {
        close(fd)
        unlink(temp)
        throw PublishError.io("cannot write \(temp): \(Self.lastError())")
      }
      offset += n
    }
    guard fsync(fd) == 0, close(fd) == 0 else {
      unlink(temp)
      throw PublishError.io("cannot flush \(temp): \(Self.lastError())")
    }
    guard rename(temp, path) == 0 else {
      unlink(temp)
      throw PublishError.io("cannot rename \(temp) to \(path): \(Self.lastError())")
    }
    let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if dfd >= 0 {
      _ = fsync(dfd)
      close(dfd)
    }
  }

  private static func lastError() -> String { String(cString: strerror(errno)) }
}

/// The C `write(2)` (a method named `write` hides it inside the writer).
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, buffer, count)
}
