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
    var digest: (sha256: String, size: Int64)?
    switch bundled {
    case .file(let url):
      if let sha = try? CacheStore.sha256(ofFile: url.path),
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size]
          as? NSNumber
      {
        digest = (sha, size.int64Value)
      }
    case .bytes(let data):
      digest = (SHA256.hash(data: data).hexString, Int64(data.count))
    case nil:
      break
    }
    // The stamp first: a change between it and the read is then noticed later, never missed.
    let stamp = store.entryStamp(id)
    let entry = Result { try store.readEntry(id) }
    var problem: String?
    if case .success(let disk?) = entry, let current = disk.current {
      problem = store.verifyBlob(current, trustingStamp: true)
    }
    return DiskLoad(bundledDigest: digest, entry: entry, blobProblem: problem, stamp: stamp)
  }
}
