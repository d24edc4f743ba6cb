import Foundation

/// Reading the copy ``ReadCore`` chose, on the blocking-I/O pool (a large asset never holds the
/// engine up; a FIFO or a device put where the bundled file was never blocks).
extension ReadSource {
  /// The bytes of this copy of asset `id`.
  ///
  /// - Throws: ``AssetUnavailable`` when the bundled file cannot be read (or is not a regular
  ///   file); a read error of the cached copy; `CancellationError` when the calling task is
  ///   cancelled before the read ran.
  func read(_ id: String, from store: CacheStore) async throws -> Data {
    switch self {
    case .blob(let sha):
      return try await IOExecutor.run { try store.readBlob(sha) }
    case .bundledFile(let url):
      let read = try await IOExecutor.run {
        ConfigurationLoader.readRegularFile(url.path, maxBytes: .max)
      }
      return try ReadCore.bundled(read, id: id, url: url)
    case .bundledBytes(let data):
      return data
    }
  }

  /// The file holding this copy (nil: bundled bytes, which are in no file).
  func fileURL(in store: CacheStore) -> URL? {
    switch self {
    case .blob(let sha): store.objectURL(sha)
    case .bundledFile(let url): url
    case .bundledBytes: nil
    }
  }
}
