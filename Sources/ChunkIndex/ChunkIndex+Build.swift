#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension ChunkIndex {
  /// The read buffer `build` streams a file through: 4 MiB.
  package static let readBufferSize = 4 << 20

  /// Reads the file at `path` once, streaming through a 4 MiB buffer (never the whole file),
  /// cutting chunks and hashing each chunk and the whole file in the same pass. Parameters
  /// default to `forFile(size:)` of the file's size. Refuses a file that is missing, not a
  /// regular file, unreadable, or whose size changes while it is read.
  package static func build(
    path: String, parameters: ChunkingParameters? = nil
  ) throws(ChunkIndexError) -> ChunkIndex {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever; the
    // type is checked on the open descriptor, so nothing can swap the file in between.
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw ChunkIndexError("\(path): \(errorText(errno))") }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw ChunkIndexError("\(path): \(errorText(errno))") }
    guard info.st_mode & 0o170000 == 0o100000 else {  // S_ISREG
      throw ChunkIndexError("\(path): not a regular file")
    }
    // A regular file's reads never wait anyway; blocking reads are restored all the same.
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    let expectedSize = Int64(info.st_size)
    var builder = ChunkIndexBuilder(parameters: parameters ?? .forFile(size: expectedSize))
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: readBufferSize, alignment: 64)
    defer { buffer.deallocate() }
    while true {
      let count = read(fd, buffer.baseAddress, buffer.count)
      if count < 0 {
        if errno == EINTR { continue }
        throw ChunkIndexError("\(path): \(errorText(errno))")
      }
      if count == 0 { break }
      builder.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
    guard builder.byteCount == expectedSize else {
      throw ChunkIndexError(
        "\(path): the file changed while it was read (\(expectedSize) bytes, then \(builder.byteCount))"
      )
    }
    return builder.finish()
  }
}
