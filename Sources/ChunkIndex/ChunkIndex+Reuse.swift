extension ChunkIndex {
  /// Each distinct chunk hash with the first chunk that has it: where a client finds the bytes
  /// of a chunk it already holds (build this over the local file's index).
  package var chunksByHash: [ChunkHash: ChunkRecord] {
    var result: [ChunkHash: ChunkRecord] = [:]
    result.reserveCapacity(chunks.count)
    for chunk in chunks where result[chunk.hash] == nil { result[chunk.hash] = chunk }
    return result
  }

  /// The chunks of this index whose hashes are not in `held` (the hashes a client already
  /// has), in file order: what it must fetch.
  package func missingChunks(holding held: Set<ChunkHash>) -> [ChunkRecord] {
    chunks.filter { !held.contains($0.hash) }
  }

  /// The byte ranges of `chunks` (in file order), adjacent chunks joined into one range, and
  /// ranges separated by less than `gap` bytes joined too (fetching a short gap again costs
  /// less than another request): the `Range` requests to make.
  package static func byteRanges(of chunks: [ChunkRecord], joiningGapsBelow gap: Int64 = 0)
    -> [Range<Int64>]
  {
    var ranges: [Range<Int64>] = []
    for chunk in chunks {
      if let last = ranges.last, chunk.offset >= last.upperBound,
        chunk.offset - last.upperBound < max(gap, 1)
      {
        ranges[ranges.count - 1] = last.lowerBound..<chunk.end
      } else {
        ranges.append(chunk.offset..<chunk.end)
      }
    }
    return ranges
  }
}
