import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Files for a test server to serve, world-readable (servers started as root serve as another
/// user).
public enum StaticFolder {
  /// Writes `data` as `name` under `folder`, making the folders on the way (mode 0755, the file
  /// 0644), dated `modified` when given (`Last-Modified` has whole seconds: a test that changes a
  /// file within a second of writing it dates the first version back). The file is written to a
  /// temporary name and renamed, so the server never reads half.
  ///
  /// - Throws: The file system's error.
  public static func put(_ name: String, _ data: Data, in folder: URL, modified: Date? = nil)
    throws
  {
    let url = folder.appendingPathComponent(name)
    let parent = url.deletingLastPathComponent()
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    var dir = parent
    while dir.path.hasPrefix(folder.path) {
      chmod(dir.path, 0o755)
      dir = dir.deletingLastPathComponent()
    }
    try data.write(to: url, options: .atomic)
    chmod(url.path, 0o644)
    if let modified {
      try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
    }
  }
}
