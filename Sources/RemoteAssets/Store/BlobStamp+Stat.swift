import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension BlobStamp {
  /// The stamp of a file's metadata.
  init(_ info: stat) {
    self.init(
      inode: UInt64(info.st_ino), size: Int64(info.st_size),
      modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
      changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
  }
}
