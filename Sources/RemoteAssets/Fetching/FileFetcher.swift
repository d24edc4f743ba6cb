import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Fetches `file://` assets through the same pipeline as HTTP: the file's identity (device and
/// inode), change and modification times and size stand in for an ETag, so an unchanged file is
/// `notModified`. The modification time and size alone are not enough: a new file moved over the
/// old one with its mtime preserved (tar, `SOURCE_DATE_EPOCH`) can match both, but it is another
/// inode, and a rename sets its change time.
///
/// Only regular files are read, and nothing blocks: the file is opened with `O_NONBLOCK`, so a
/// FIFO (or a device) at the path is refused at once instead of hanging the refresh.
package struct FileFetcher: AssetFetcher {
  /// Creates a file fetcher.
  public init() {}

  public func canFetch(_ url: URL) -> Bool { url.isFileURL }

  public func fetch(_ request: FetchRequest, into sink: DownloadSink) async throws -> FetchResponse
  {
    let path = request.url.path
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else {
      let code = errno
      if code == ENOENT {
        throw FetchError(.httpStatus, "\(path) does not exist", status: 404)
      }
      throw FetchError(
        .httpStatus, "\(path) cannot be read (\(String(cString: strerror(code))))", status: 403)
    }
    defer { close(fd) }
    var before = stat()
    guard fstat(fd, &before) == 0 else {
      throw FetchError(.httpStatus, "\(path) cannot be read", status: 403)
    }
    guard (before.st_mode & S_IFMT) == S_IFREG else {
      throw FetchError(
        .invalid,
        "\(path) is not a regular file (\(Self.kind(before.st_mode))); only files are read")
    }
    let size = Int64(before.st_size)
    let etag = Self.etag(before)
    let modified = Date(timeIntervalSince1970: TimeInterval(before.st_mtim.tv_sec))
    let metadata = FetchMetadata(
      etag: etag, lastModified: HTTPDate.format(modified))
    if request.etag == etag { return .notModified(metadata) }
    try sink.announce(totalBytes: size)
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      try Task.checkCancellation()
      let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0, errno == EINTR { continue }
      if n < 0 { throw FetchError(.httpStatus, "\(path) cannot be read", status: 403) }
      if n == 0 { break }
      try buffer.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
    // An editor may be writing the file right now: only a read that saw one stable version counts.
    var after = stat()
    guard stat(path, &after) == 0, Self.etag(after) == etag, sink.bytesWritten == size else {
      throw FetchError(.truncated, "\(path) changed while it was read; reading it again")
    }
    sink.flushProgress()
    return .downloaded(metadata)
  }

  /// The version of a file as an ETag: device, inode, change time, modification time, size.
  private static func etag(_ info: stat) -> String {
    let identity = "\(UInt64(info.st_dev)):\(UInt64(info.st_ino))"
    return
      "\"\(identity)-\(stamp(info.st_ctim))-\(stamp(info.st_mtim))-\(Int64(info.st_size))\""
  }

  /// A time in microseconds, saturated at the ends of `Int64` (a file system such as tmpfs
  /// holds any `Int64` of seconds). Never traps.
  private static func stamp(_ time: timespec) -> Int64 {
    let seconds = Int64(time.tv_sec)
    let saturated: Int64 = seconds < 0 ? .min : .max
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
    guard !overflow else { return saturated }
    let (sum, carried) = scaled.addingReportingOverflow(Int64(time.tv_nsec) / 1000)
    return carried ? saturated : sum
  }

  private static func kind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFIFO: return "a FIFO"
    case S_IFDIR: return "a folder"
    case S_IFCHR, S_IFBLK: return "a device"
    case S_IFSOCK: return "a socket"
    default: return "not a file"
    }
  }
}
