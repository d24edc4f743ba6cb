import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension CacheStore {
  // MARK: - Partials

  /// Reserves a new partial file in `tmp/` for a download of `owner` (an asset id or
  /// `manifest`), made by the first byte of a body, so a 304 touches no file: without a name
  /// where the file system allows it (``PartialFile``), else created exclusive and locked.
  func createPartial(for owner: String) throws -> PartialFile {
    guard owner == "manifest" || CacheLayout.isID(owner) else {
      throw StorageError(operation: "partial", path: owner, code: EINVAL)
    }
    let tmp = try folder(tmpFolder, CacheLayout.tmp)
    let name = "\(owner).\(UniqueSuffix.next()).part"
    return PartialFile(
      folder: tmp, deferredName: name, unnamed: unnamedPartials ? unnamedBytes : nil)
  }

  /// The resume journal of asset `id` for `remote` in `tmp/`, or nil on a read-only cache.
  func resumeJournal(_ id: String, remote: URL) -> ResumeJournal? {
    guard let tmp = tmpFolder, !isReadOnly else { return nil }
    return ResumeJournal(folder: tmp, id: id, url: remote.absoluteString)
  }
}
