import ChunkIndex
import Foundation

extension CacheStore {
  // MARK: - Chunk indexes of cached copies

  /// The chunk index of cached blob `sha256` with `parameters`: the stored sidecar when it
  /// parses and describes this blob with these parameters, else made by reading the blob (and
  /// stored for next time when the cache is writable). Blocking: call it off the actor.
  ///
  /// The sidecar is the engine's own: written after the blob was hash-checked, after a delta
  /// update whose every fetched chunk and whole file matched, or (after a whole download) the
  /// index the publisher named for the blob's hash, when no delta found that index unusable. A sidecar that lies (a damaged
  /// disk) can only make a delta fail its whole-file hash, never commit wrong bytes.
  ///
  /// - Throws: a storage error, or ``ChunkIndexError`` when the blob cannot be read.
  func chunkIndex(ofBlob sha256: String, parameters: ChunkingParameters) throws -> ChunkIndex {
    guard SHA256Text.isValid(sha256) else {
      throw StorageError(operation: "chunk index", path: sha256, code: EINVAL)
    }
    let objects = try folder(objectsFolder, CacheLayout.objects)
    let name = CacheLayout.chunkIndexName(of: sha256)
    if let data = try? objects.read(name, limit: Int(ChunkIndexReference.maxSize)),
      let stored = try? ChunkIndex(parsing: data),
      stored.fileSHA256 == sha256, stored.parameters == parameters
    {
      return stored
    }
    let built = try ChunkIndex.build(path: objectPath(sha256), parameters: parameters)
    guard built.fileSHA256 == sha256 else {
      throw StorageError(
        operation: "chunk index (the blob's hash changed)", path: sha256, code: EIO)
    }
    storeChunkIndex(built)
    return built
  }

  /// Removes blob `sha256`'s sidecar index, one a delta found lying (best effort).
  func removeChunkIndex(ofBlob sha256: String) {
    guard !isReadOnly, SHA256Text.isValid(sha256), let objects = objectsFolder else { return }
    objects.remove(CacheLayout.chunkIndexName(of: sha256))
  }

  /// Keeps `index` as its blob's sidecar (best effort: a cache of a cache, never fsynced).
  func storeChunkIndex(_ index: ChunkIndex) {
    guard !isReadOnly, SHA256Text.isValid(index.fileSHA256), let objects = objectsFolder else {
      return
    }
    try? objects.write(
      Data(index.encoded()), as: CacheLayout.chunkIndexName(of: index.fileSHA256), durably: false,
      syncingFolder: false)
  }
}
