import Crypto

/// Builds a `ChunkIndex` from a file's bytes fed in order, in buffers of any size: cuts chunks
/// with a `Chunker` and hashes each chunk and the whole file in the same pass.
package struct ChunkIndexBuilder: Sendable {
  /// The parameters the chunks are cut with.
  package let parameters: ChunkingParameters
  private var chunker: Chunker
  private var fileHasher = SHA256()
  private var chunkHasher = SHA256()
  private var chunks: [ChunkRecord] = []
  private var chunkStart: Int64 = 0
  /// The bytes fed so far.
  package private(set) var byteCount: Int64 = 0

  /// A builder at the start of a file.
  package init(parameters: ChunkingParameters) {
    self.parameters = parameters
    self.chunker = Chunker(parameters: parameters)
  }

  /// Feeds the next bytes of the file.
  package mutating func append(_ buffer: UnsafeRawBufferPointer) {
    guard !buffer.isEmpty else { return }
    fileHasher.update(bufferPointer: buffer)
    byteCount += Int64(buffer.count)
    var rest = buffer
    while let cut = chunker.nextCut(in: rest) {
      chunkHasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: rest[..<cut]))
      closeChunk(end: byteCount - Int64(rest.count - cut))
      rest = UnsafeRawBufferPointer(rebasing: rest[cut...])
    }
    if !rest.isEmpty { chunkHasher.update(bufferPointer: rest) }
  }

  /// The index of the bytes fed: the last chunk is whatever is pending. Call it once, last.
  package mutating func finish() -> ChunkIndex {
    if byteCount > chunkStart { closeChunk(end: byteCount) }
    return ChunkIndex(
      parameters: parameters, fileSize: byteCount,
      fileSHA256: fileHasher.finalize().lowercaseHex, chunks: chunks)
  }

  private mutating func closeChunk(end: Int64) {
    let digest = chunkHasher.finalize()
    chunks.append(
      ChunkRecord(offset: chunkStart, length: Int(end - chunkStart), hash: ChunkHash(digest)))
    chunkStart = end
    chunkHasher = SHA256()
  }
}
