import Foundation

extension AssetEngine {
  /// The resume journal of `id` for `remote`, or nil on a read-only cache.
  func resumeJournal(_ id: String, remote: URL) -> ResumeJournal? {
    guard let tmp = store.tmpFolder, !store.isReadOnly else { return nil }
    return ResumeJournal(folder: tmp, id: id, url: remote.absoluteString)
  }

  /// Takes the kept partial of `id` if it belongs to `remote` and its bytes agree with its
  /// record: returns the reopened file (cut to what the record vouches for) and the validator to
  /// send as `If-Range`. A partial that cannot be used is deleted.
  func takeResume(_ id: String, remote: URL) -> (partial: PartialFile, etag: String)? {
    resumeJournal(id, remote: remote)?.take()
  }
}
