/// One chunk of a file: where it starts, how long it is, and its SHA-256.
package struct ChunkRecord: Sendable, Equatable {
  /// The chunk's first byte in the file.
  package var offset: Int64
  /// The chunk's length in bytes (1...maxSize).
  package var length: Int
  /// The SHA-256 of the chunk's bytes.
  package var hash: ChunkHash

  /// A chunk at `offset` of `length` bytes hashing to `hash`.
  package init(offset: Int64, length: Int, hash: ChunkHash) {
    self.offset = offset
    self.length = length
    self.hash = hash
  }

  /// One past the chunk's last byte.
  package var end: Int64 { offset + Int64(length) }
}
