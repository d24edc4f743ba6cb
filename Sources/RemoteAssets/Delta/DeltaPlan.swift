import ChunkIndex

/// How a new version of a large file is assembled from the chunks cached copies already hold
/// and `Range` requests for the rest: a pure decision from the target's chunk index and the
/// cached copies' indexes, tested without a network or a disk.
///
/// Steps are in file order (the new file is written front to back, hashed as it is written);
/// adjacent chunks from the same place are merged: neighbouring reused chunks into one copy,
/// neighbouring missing chunks into one range of at most ``maxRangeBytes`` (one chunk larger
/// than that is a range of its own). At least one chunk is always fetched (see below).
package struct DeltaPlan: Sendable, Equatable {
  /// One step of the assembly.
  package enum Step: Sendable, Equatable {
    /// Copy `length` bytes at `offset` of cached copy number `source` (an index into the
    /// `local` indexes the plan was made from).
    case copy(source: Int, offset: Int64, length: Int64)
    /// Fetch `range` of the remote file; `chunks` are the target chunks it holds, in order, so
    /// each one's hash is checked as it arrives.
    case fetch(range: Range<Int64>, chunks: [ChunkRecord])

    /// The bytes the step adds to the new file.
    package var length: Int64 {
      switch self {
      case .copy(_, _, let length): length
      case .fetch(let range, _): range.upperBound - range.lowerBound
      }
    }
  }

  /// The steps, in file order.
  package var steps: [Step]
  /// Bytes the `Range` requests fetch.
  package var fetchBytes: Int64
  /// Bytes copied from cached copies.
  package var reusedBytes: Int64

  /// The default largest range: four in flight stay within 16 MiB of memory.
  package static let maxRangeBytes: Int64 = 4 << 20

  /// Plans `target` from the chunks in `local` (the first copy holding a hash is used).
  package init(
    target: ChunkIndex, local: [ChunkIndex], maxRangeBytes: Int64 = DeltaPlan.maxRangeBytes
  ) {
    var held: [ChunkHash: (source: Int, offset: Int64, length: Int)] = [:]
    for (source, index) in local.enumerated() {
      for chunk in index.chunks where held[chunk.hash] == nil {
        held[chunk.hash] = (source, chunk.offset, chunk.length)
      }
    }
    var steps: [Step] = []
    var fetched: Int64 = 0
    var reused: Int64 = 0
    for (position, chunk) in target.chunks.enumerated() {
      let length = Int64(chunk.length)
      // At least one range is fetched: its response names the new version's validators (for
      // the next conditional check) and shows the server serves it.
      let mustFetch = position == target.chunks.count - 1 && fetched == 0
      if !mustFetch, let have = held[chunk.hash], have.length == chunk.length {
        reused += length
        if case .copy(let source, let offset, let run)? = steps.last, source == have.source,
          offset + run == have.offset
        {
          steps[steps.count - 1] = .copy(source: source, offset: offset, length: run + length)
        } else {
          steps.append(.copy(source: have.source, offset: have.offset, length: length))
        }
      } else {
        fetched += length
        if case .fetch(let range, let chunks)? = steps.last, range.upperBound == chunk.offset,
          range.upperBound - range.lowerBound + length <= maxRangeBytes
        {
          steps[steps.count - 1] = .fetch(
            range: range.lowerBound..<(chunk.offset + length), chunks: chunks + [chunk])
        } else {
          steps.append(.fetch(range: chunk.offset..<(chunk.offset + length), chunks: [chunk]))
        }
      }
    }
    self.steps = steps
    self.fetchBytes = fetched
    self.reusedBytes = reused
  }

  /// How many `Range` requests the plan makes.
  package var fetchCount: Int {
    steps.reduce(0) { count, step in
      if case .fetch = step { count + 1 } else { count }
    }
  }
}
