/// A large file's chunk index: the file's size and SHA-256, and its content-defined chunks in
/// order, each with its length and SHA-256.
///
/// A publisher writes it next to the file (`FILE.chunks`); a client that holds an older version
/// reuses the chunks whose hashes it already has and fetches only the others, with HTTP Range
/// requests. Because the cuts depend on the content around them, not on offsets, an insertion
/// or deletion moves the chunks after it without changing them.
///
/// The file format (text, LF line ends, a final LF, nothing else):
/// ```
/// assetwatch-chunks 1
/// fastcdc <min> <avg> <max>
/// size <fileSize>
/// sha256 <64 hex>
/// <length> <64 hex>        (one line per chunk, in order; offsets are the running sum)
/// ```
package struct ChunkIndex: Sendable, Equatable {
  /// The largest index file `init(parsing:)` reads: 64 MiB.
  package static let maxBytes = 64 << 20
  /// The first line's words.
  static let magic = "assetwatch-chunks"
  /// The format version this code writes and reads.
  static let version = 1

  /// The chunking parameters the chunks were cut with.
  package var parameters: ChunkingParameters
  /// The file's size in bytes.
  package var fileSize: Int64
  /// The lowercase hex SHA-256 of the whole file.
  package var fileSHA256: String
  /// The chunks: contiguous, in order, covering `0..<fileSize` exactly.
  package var chunks: [ChunkRecord]

  /// An index made of its parts (not checked; `init(parsing:)` checks what it reads).
  package init(
    parameters: ChunkingParameters, fileSize: Int64, fileSHA256: String, chunks: [ChunkRecord]
  ) {
    self.parameters = parameters
    self.fileSize = fileSize
    self.fileSHA256 = fileSHA256
    self.chunks = chunks
  }

  /// The index of `bytes`, a whole file held in memory (the same as `build` of that file).
  package init(of bytes: UnsafeRawBufferPointer, parameters: ChunkingParameters) {
    var builder = ChunkIndexBuilder(parameters: parameters)
    builder.append(bytes)
    self = builder.finish()
  }

  /// The index of `bytes`, with the parameters `forFile(size:)` picks unless given.
  package init(of bytes: [UInt8], parameters: ChunkingParameters? = nil) {
    let chosen = parameters ?? .forFile(size: Int64(bytes.count))
    self = bytes.withUnsafeBytes { ChunkIndex(of: $0, parameters: chosen) }
  }

  /// The index file's bytes (format above).
  package func encoded() -> [UInt8] {
    var text = ""
    text.reserveCapacity(100 + chunks.count * 72)
    text += "\(Self.magic) \(Self.version)\n"
    text += "fastcdc \(parameters.minSize) \(parameters.averageSize) \(parameters.maxSize)\n"
    text += "size \(fileSize)\n"
    text += "sha256 \(fileSHA256)\n"
    for chunk in chunks {
      text += "\(chunk.length) \(chunk.hash.hex)\n"
    }
    return Array(text.utf8)
  }

  /// The set of chunk hashes, for finding which chunks another index shares with this one.
  package var chunkHashes: Set<ChunkHash> { Set(chunks.map(\.hash)) }
}
