import Crypto
import Dispatch
import Synchronization

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

  /// Feeds the next bytes of the file. A buffer of 1 MiB or more is hashed for the whole file on
  /// a second thread while the chunks are cut and hashed on this one: two SHA-256 passes over
  /// the same bytes take the time of one on a machine with two cores.
  package mutating func append(_ buffer: UnsafeRawBufferPointer) {
    guard !buffer.isEmpty else { return }
    guard buffer.count >= 1 << 20 else {
      fileHasher.update(bufferPointer: buffer)
      cut(buffer)
      return
    }
    let file = Mutex(fileHasher)
    let chunks = Mutex(self)
    // The buffer crosses as an address: `concurrentPerform` returns only after both iterations
    // ran, so the memory stays valid and unchanged throughout; each iteration locks only its own
    // state, so neither waits for the other.
    let (start, count) = (UInt(bitPattern: buffer.baseAddress), buffer.count)
    DispatchQueue.concurrentPerform(iterations: 2) { part in
      let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: start), count: count)
      if part == 0 {
        file.withLock { $0.update(bufferPointer: bytes) }
      } else {
        chunks.withLock { $0.cut(bytes) }
      }
    }
    self = chunks.withLock { $0 }
    self.fileHasher = file.withLock { $0 }
  }

  /// Cuts and hashes the chunks of the next bytes (not the whole file's hash).
  private mutating func cut(_ buffer: UnsafeRawBufferPointer) {
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
