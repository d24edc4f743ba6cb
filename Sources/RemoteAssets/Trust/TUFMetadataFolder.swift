import Foundation
import TUF

#if canImport(Glibc)
  import Glibc
#endif

/// The folder where a TUF client keeps the metadata it trusts: one file per role under its
/// non-versioned name (``TUFFileNames/metadataFile(role:)``: `root.json`, `timestamp.json`,
/// `snapshot.json`, `targets.json`, `a%2Fb.json` for the delegated role `a/b`).
///
/// Files are written the way the cache store writes entries, through ``DirectoryHandle``: a new
/// temp file (exclusive, mode 0600, never through a link), fsync, rename over the name, fsync of
/// the folder. A reader (this process after a crash, or another one) sees the previous file or
/// the new one, never half of either: an interrupted write leaves at most a `*.tmp` file that no
/// role name can match.
struct TUFMetadataFolder: Sendable {
  let directory: DirectoryHandle

  /// Largest cached metadata file read back (the verifier applies the per-role limits).
  static let readLimit = 64 << 20

  /// Opens the folder at `path`, creating it (mode 0700) and its parents when `create` is set.
  init(path: String, create: Bool) throws(StorageError) {
    if create {
      var isFolder: ObjCBool = false
      if !FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
        do {
          try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        } catch {
          throw StorageError(operation: "create folder", path: path, code: EACCES)
        }
      }
    }
    directory = try DirectoryHandle.open(path: path)
  }

  /// The trusted bytes of `role`, or nil when there are none.
  func read(role: String) throws(StorageError) -> [UInt8]? {
    try directory.read(TUFFileNames.metadataFile(role: role), limit: Self.readLimit).map {
      [UInt8]($0)
    }
  }

  /// Stores `bytes` as the trusted metadata of `role`, durably (see the type's comment).
  func persist(_ bytes: [UInt8], role: String) throws(StorageError) {
    try directory.writeDurably(Data(bytes), as: TUFFileNames.metadataFile(role: role))
  }

  /// Removes what an interrupted run left here: partial downloads (`.<n>.part`, which their
  /// writer keeps locked while it lives) that no one holds, and (with `tempFiles`, a metadata
  /// folder, which is the client's own) temp files of interrupted writes (`<name>.<n>.tmp`)
  /// older than `minimumAge` seconds. A target folder is the user's (`--target-dir`): only the
  /// partials, whose names are the client's, go there. Best effort: failures are ignored.
  func sweepLeftovers(now: Date = Date(), minimumAge: TimeInterval = 600, tempFiles: Bool = true) {
    guard let names = try? directory.list() else { return }
    for (name, isFile) in names where isFile {
      let parts = name.split(separator: ".", omittingEmptySubsequences: false)
      guard parts.count >= 3, let last = parts.last,
        parts[parts.count - 2].allSatisfy(\.isNumber), !parts[parts.count - 2].isEmpty
      else { continue }
      if last == "part", parts.count == 3, parts[0].isEmpty {
        directory.removeIfUnlocked(name)
      } else if tempFiles, last == "tmp", let info = try? directory.status(name),
        now.timeIntervalSince1970 - Double(info.st_mtim.tv_sec) > minimumAge
      {
        directory.remove(name)
      }
    }
  }

  /// Removes the trusted metadata of `role` durably (fast-forward attack recovery).
  func remove(role: String) throws(StorageError) {
    if directory.remove(TUFFileNames.metadataFile(role: role)) { try directory.sync() }
  }
}
