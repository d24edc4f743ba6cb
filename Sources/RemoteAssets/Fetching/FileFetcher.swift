import Foundation

/// Fetches `file://` assets through the same pipeline as HTTP: the file's modification time and
/// size stand in for an ETag, so an unchanged file is `notModified`.
public struct FileFetcher: AssetFetcher {
  /// Creates a file fetcher.
  public init() {}

  public func canFetch(_ url: URL) -> Bool { url.isFileURL }

  public func fetch(_ request: FetchRequest, into sink: DownloadSink) async throws -> FetchResponse
  {
    let path = request.url.path
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
      throw FetchError(.http, "\(path) does not exist or cannot be read", status: 404)
    }
    let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
    let modified = (attributes[.modificationDate] as? Date) ?? .distantPast
    let etag = "\"\(Int64(modified.timeIntervalSince1970 * 1_000_000))-\(size)\""
    let metadata = FetchMetadata(etag: etag, lastModified: HTTPDate.format(modified))
    if request.etag == etag { return .notModified(metadata) }
    try sink.announce(totalBytes: size)
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw FetchError(.http, "\(path) cannot be read", status: 403)
    }
    defer { try? handle.close() }
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
      try Task.checkCancellation()
      try sink.write(chunk)
    }
    // An editor may be writing the file right now: only a read that saw one stable version counts.
    let after = try? FileManager.default.attributesOfItem(atPath: path)
    let sizeAfter = (after?[.size] as? NSNumber)?.int64Value
    let modifiedAfter = after?[.modificationDate] as? Date
    guard sizeAfter == size, modifiedAfter == modified, sink.bytesWritten == size else {
      throw FetchError(.truncated, "\(path) changed while it was read; reading it again")
    }
    sink.flushProgress()
    return .downloaded(metadata)
  }
}
