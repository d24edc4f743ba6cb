import Foundation

/// What is needed to continue a kept partial download (`tmp/<id>.resume.json`).
struct ResumeRecord: Codable, Sendable, Equatable {
  /// The URL the bytes came from; a different URL starts over.
  var url: String
  /// The strong ETag of the version the bytes belong to (sent as `If-Range`).
  var etag: String
  /// Bytes known durable (fsynced) in `tmp/<id>.resume.part`.
  var bytes: Int64
  /// The full length, when the server said it.
  var total: Int64?
}

extension AssetEngine {
  /// Partials smaller than this are not worth keeping.
  static let minimumResumableBytes: Int64 = 256 * 1024

  func resumePaths(_ id: String) -> (part: String, record: String) {
    let base = store.tmp.appendingPathComponent(id).path
    return (base + ".resume.part", base + ".resume.json")
  }

  /// Takes the kept partial of `id` if it belongs to `remote`: returns where to continue, and
  /// removes the record (a crash while continuing must not reuse it). A partial that cannot be
  /// used is deleted.
  func takeResume(_ id: String, remote: URL) -> (path: String, offset: Int64, etag: String)? {
    let paths = resumePaths(id)
    guard let data = FileManager.default.contents(atPath: paths.record) else { return nil }
    unlink(paths.record)
    guard let record = try? JSONDecoder().decode(ResumeRecord.self, from: data),
      record.url == remote.absoluteString,
      let size = (try? FileManager.default.attributesOfItem(atPath: paths.part))?[.size]
        as? NSNumber, size.int64Value >= record.bytes
    else {
      unlink(paths.part)
      return nil
    }
    return (paths.part, record.bytes, record.etag)
  }

  /// Keeps what a failed or interrupted transfer wrote, so the next attempt asks only for the rest.
  /// Returns whether it was kept.
  func keepForResume(_ id: String, sink: DownloadSink, remote: URL) -> Bool {
    guard let point = sink.resumePoint(minimumBytes: Self.minimumResumableBytes) else {
      return false
    }
    let paths = resumePaths(id)
    do {
      try sink.keep()
      if sink.path != paths.part { try POSIX.rename(sink.path, paths.part) }
      let record = ResumeRecord(
        url: remote.absoluteString, etag: point.etag, bytes: point.bytes, total: point.total)
      try POSIX.writeDurably(try JSONEncoder().encode(record), to: paths.record)
      return true
    } catch {
      unlink(paths.part)
      unlink(paths.record)
      return false
    }
  }
}
