import ChunkIndex
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What a delta reads of the cached copies it may reuse: each copy's chunk index in the new
/// version's chunking (stored beside its blob, or made by reading it) and an open descriptor.
/// A copy that cannot be read (gone, damaged) is left out, with its problem; the others count.
/// Made on the blocking-I/O pool (indexing a copy reads all of it).
struct CachedChunks: Sendable {
  var indexes: [ChunkIndex] = []
  var descriptors: [Int32] = []
  var problems: [String] = []

  init(_ store: CacheStore, _ shas: [String], _ parameters: ChunkingParameters) {
    for sha in shas {
      do {
        let index = try store.chunkIndex(ofBlob: sha, parameters: parameters)
        descriptors.append(try store.openBlob(sha))
        indexes.append(index)
      } catch {
        problems.append("\(error)")
      }
    }
  }

  /// Closes the descriptors.
  func close() {
    for fd in descriptors { _ = Glibc.close(fd) }
  }
}
