import Crypto
import Foundation

/// What reading one asset's files at start found: its entry, whether the blob it names is
/// intact (by its stamp, no re-hash), the entry file's stamp, and the bundled copy's digest.
/// Made off the engine actor (``AssetEngine/readFromDisk(_:)``); the actor only applies it.
struct DiskLoad: Sendable {
  /// The bundled copy's SHA-256 and size, when there is one.
  var bundledDigest: (sha256: String, size: Int64)?
  /// The entry on disk (nil when none), or why it cannot be read.
  var entry: Result<CacheEntry?, any Error>
  /// Why the current blob cannot be served, when it cannot.
  var blobProblem: String?
  /// The entry file's stamp when it was read (how a later look notices other processes).
  var stamp: BlobStamp?

  /// Reads `id`'s entry, checks the blob it names and digests the bundled copy.
  static func read(_ id: String, bundled: BundledSource?, store: CacheStore) -> DiskLoad {
    let digest = bundledDigest(bundled)
    var (entry, problem, stamp, file) = look(id, store: store, known: nil)
    if problem != nil, !store.isReadOnly,
      let again = try? store.withCommitLock({
        look(id, store: store, known: problem.map { ($0, entry, file) })
      })
    {
      // Read without the lock, the entry may name a blob another process has just replaced
      // and removed: only what the entry names under the lock counts as damage.
      (entry, problem, stamp, file) = again
    }
    return DiskLoad(bundledDigest: digest, entry: entry, blobProblem: problem, stamp: stamp)
  }

  /// The SHA-256 and size of a bundled copy (nil without one, or when its file cannot be read).
  static func bundledDigest(_ bundled: BundledSource?) -> (sha256: String, size: Int64)? {
    switch bundled {
    case .file(let url):
      guard let sha = try? CacheStore.sha256(ofFile: url.path),
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size]
          as? NSNumber
      else { return nil }
      return (sha, size.int64Value)
    case .bytes(let data):
      return (SHA256.hash(data: data).hexString, Int64(data.count))
    case nil:
      return nil
    }
  }

  /// The entry, what is wrong with the blob it names, the entry file's stamp and the blob file's.
  ///
  /// With `known` (a problem found by an earlier look, what it read and the blob file's stamp
  /// then): when the entry still names the same copy and the blob file is unchanged, the problem
  /// stands without reading the blob again.
  private static func look(
    _ id: String, store: CacheStore,
    known: (problem: String, entry: Result<CacheEntry?, any Error>, file: BlobStamp?)?
  ) -> (
    entry: Result<CacheEntry?, any Error>, problem: String?, stamp: BlobStamp?, file: BlobStamp?
  ) {
    // The stamp is the read file's own (or, for a file that cannot be opened, one taken before
    // reading it again): a change after the read is noticed later, never missed.
    let (entry, stamp) = store.readStampedEntry(id)
    // The start's sweep then finds the file unchanged by its stamp instead of reading it again.
    if case .success(let read) = entry { store.noteEntryBlobs(id, stamp: stamp, entry: read) }
    guard case .success(let disk?) = entry, let current = disk.current else {
      return (entry, nil, stamp, nil)
    }
    let file = store.blobFileStamp(current.sha256)
    if let known, case .success(let before?) = known.entry,
      current.isSameCopy(as: before.current), file == known.file
    {
      return (entry, known.problem, stamp, file)
    }
    return (entry, store.verifyBlob(current, trustingStamp: true, file: file), stamp, file)
  }
}
