#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension ChunkIndex {
  /// Writes `encoded()` to `path` atomically: a temporary file in the same folder, fsynced, then
  /// renamed over `path`, so a reader sees the old index or the new one, never part of one.
  /// Returns the bytes written.
  @discardableResult
  package func write(toPath path: String) throws(ChunkIndexError) -> [UInt8] {
    let bytes = encoded()
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { String(path[..<$0]) } ?? "."
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    let temp =
      (folder.isEmpty ? "" : folder + "/")
      + ".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw ChunkIndexError("\(path): cannot create \(temp): \(Self.errorText(errno))")
    }
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { raw in
        systemWrite(fd, raw.baseAddress! + offset, raw.count - offset)
      }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else {
        let reason = Self.errorText(errno)
        close(fd)
        unlink(temp)
        throw ChunkIndexError("\(path): cannot write: \(reason)")
      }
      offset += written
    }
    guard fsync(fd) == 0, close(fd) == 0 else {
      let reason = Self.errorText(errno)
      unlink(temp)
      throw ChunkIndexError("\(path): cannot flush: \(reason)")
    }
    guard rename(temp, path) == 0 else {
      let reason = Self.errorText(errno)
      unlink(temp)
      throw ChunkIndexError("\(path): cannot rename into place: \(reason)")
    }
    return bytes
  }

  /// The C library's text for `code`, in lower case ("no such file or directory").
  static func errorText(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text).lowercased()
  }
}

/// The C `write(2)` (a method named `write` hides it inside the extension).
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, buffer, count)
}
