import Foundation

/// A fresh, empty folder under the system's temporary directory, for one test.
///
/// Prefer ``withTemporaryDirectory(prefix:_:)``, which removes the folder when its body ends,
/// also when the body throws. A value made with ``init(prefix:)`` is removed only by ``remove()``.
public struct TemporaryDirectory: Sendable {
  /// The folder.
  public let url: URL

  /// Creates a new empty folder named `<prefix>-<UUID>`.
  ///
  /// - Throws: The file system's error when the folder cannot be created.
  public init(prefix: String = "aw-test") throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// The folder's path.
  public var path: String { url.path }

  /// The URL of `name` (a relative path) inside the folder; nothing is created.
  public func url(_ name: String) -> URL { url.appendingPathComponent(name) }

  /// Writes `contents` as UTF-8 to `name` (a relative path), creating folders on the way.
  ///
  /// - Returns: The file's URL.
  /// - Throws: The file system's error.
  @discardableResult
  public func file(_ name: String, _ contents: String) throws -> URL {
    try file(name, Data(contents.utf8))
  }

  /// Writes `data` to `name` (a relative path), creating folders on the way.
  ///
  /// - Returns: The file's URL.
  /// - Throws: The file system's error.
  @discardableResult
  public func file(_ name: String, _ data: Data) throws -> URL {
    let target = url(name)
    try FileManager.default.createDirectory(
      at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: target)
    return target
  }

  /// Removes the folder and everything in it (errors are ignored: it may be gone already).
  public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` with a new empty folder and removes the folder when `body` returns or throws.
///
/// - Returns: What `body` returns.
/// - Throws: The folder's creation error, or what `body` throws.
public func withTemporaryDirectory<T>(
  prefix: String = "aw-test", _ body: (TemporaryDirectory) async throws -> T
) async throws -> T {
  let directory = try TemporaryDirectory(prefix: prefix)
  defer { directory.remove() }
  return try await body(directory)
}

/// The synchronous form of ``withTemporaryDirectory(prefix:_:)``, for tests that do no async work.
///
/// - Returns: What `body` returns.
/// - Throws: The folder's creation error, or what `body` throws.
public func withTemporaryDirectory<T>(
  prefix: String = "aw-test", _ body: (TemporaryDirectory) throws -> T
) throws -> T {
  let directory = try TemporaryDirectory(prefix: prefix)
  defer { directory.remove() }
  return try body(directory)
}
