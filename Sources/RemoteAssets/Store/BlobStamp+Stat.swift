import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension BlobStamp {
  /// The stamp of a file's metadata.
  init(_ info: stat) {
    self.init(
      inode: UInt64(info.st_ino), size: Int64(info.st_size),
      modified: Self.nanoseconds(info.st_mtim), changed: Self.nanoseconds(info.st_ctim))
  }

  /// `time` in nanoseconds since 1970, saturated at the ends of `Int64` (which nanoseconds
  /// leave after the year 2262, and a file system can hold later times: ext4 up to 2446, tmpfs
  /// any `Int64` of seconds). Never traps.
  static func nanoseconds(_ time: timespec) -> Int64 {
    let seconds = Int64(time.tv_sec)
    let saturated: Int64 = seconds < 0 ? .min : .max
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return saturated }
    let (sum, carried) = scaled.addingReportingOverflow(Int64(time.tv_nsec))
    return carried ? saturated : sum
  }
}
