import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a ``Publication`` into a repository folder so that a server serving the folder at any
/// moment serves a valid repository: each file is written to a temporary name in its folder,
/// fsynced, renamed over its final name and the folder fsynced; new targets, targets and
/// snapshot metadata first, then a new root (`metadata/N.root.json`), then
/// `metadata/timestamp.json` (the file that makes clients see the rest) last. Clients fetch the
/// next root before anything else, so a new root goes live when written: it is written only
/// once everything it is meant to come with is on disk, right before the timestamp. Interrupted
/// before the new root (or, without one, before the timestamp), clients keep seeing the previous
/// version; the files already written are unreferenced and the next publish writes over them.
/// Interrupted between a new root and the timestamp, clients take the new root and refuse the
/// previous timestamp or snapshot if it took their keys off, until the step is completed
/// (`publish sign` signs targets, snapshot and timestamp under the newest root).
package struct RepositoryWriter: Sendable {
  package let folder: String
  /// Called before the timestamp is written (tests make it throw to play an interruption).
  package var beforeTimestamp: (@Sendable () throws -> Void)?
  /// Called with each file's relative path before it is written (tests record the order, or
  /// throw to play an interruption there).
  package var beforeFile: (@Sendable (String) throws -> Void)?

  package init(folder: String) { self.folder = folder }

  package func write(_ publication: Publication) throws {
    let timestamp = "metadata/timestamp.json"
    let roots = publication.files.filter { Self.isRootVersion($0.path) }
    for (path, bytes) in publication.files where path != timestamp && !Self.isRootVersion(path) {
      try beforeFile?(path)
      try writeFile(path, bytes)
    }
    for (path, bytes) in roots {
      try beforeFile?(path)
      try writeFile(path, bytes)
    }
    if let last = publication.files.last(where: { $0.path == timestamp }) {
      try beforeTimestamp?()
      try beforeFile?(timestamp)
      try writeFile(timestamp, last.bytes)
    }
  }

  /// `metadata/N.root.json` (or `metadata/root.json`): a root clients take as soon as it is there.
  static func isRootVersion(_ path: String) -> Bool {
    guard path.hasPrefix("metadata/"), path.hasSuffix("root.json") else { return false }
    let name = path.dropFirst("metadata/".count).dropLast("root.json".count)
    if name.isEmpty { return true }
    guard name.count > 1, name.hasSuffix(".") else { return false }
    return name.dropLast().allSatisfy { $0.isASCII && $0.isNumber }
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
