import AssetWatchTestKit
import Testing

@testable import ChunkIndex

@Suite struct ChunkerTests {
  static let small = ChunkingParameters(averageSize: 64 << 10)

  @Test func parametersForFileSizes() {
    #expect(ChunkingParameters.forFile(size: 1 << 30).averageSize == 256 << 10)
    #expect(ChunkingParameters.forFile(size: 1 << 30).minSize == 64 << 10)
    #expect(ChunkingParameters.forFile(size: 1 << 30).maxSize == 1 << 20)
    #expect(ChunkingParameters.forFile(size: 0).averageSize == 64 << 10)
    #expect(ChunkingParameters.forFile(size: 1000).averageSize == 64 << 10)
    #expect(ChunkingParameters.forFile(size: 100 << 30).averageSize == 1 << 20)
    #expect(ChunkingParameters.forFile(size: Int64.max).averageSize == 1 << 20)
    // 3 GiB / 4096 = 768 KiB, halfway between 512 KiB and 1 MiB: rounds up.
    #expect(ChunkingParameters.forFile(size: 3 << 30).averageSize == 1 << 20)
    // 1.4 GiB / 4096 = 358 KiB, nearer 256 KiB than 512 KiB.
    #expect(ChunkingParameters.forFile(size: 1_503_238_553).averageSize == 256 << 10)
  }

  @Test func averageIsClampedAndRounded() {
    #expect(ChunkingParameters(averageSize: 1).averageSize == 64 << 10)
    #expect(ChunkingParameters(averageSize: -5).averageSize == 64 << 10)
    #expect(ChunkingParameters(averageSize: Int.max).averageSize == 1 << 20)
    #expect(ChunkingParameters(averageSize: 200_000).averageSize == 256 << 10)
    #expect(ChunkingParameters(averageSize: 150_000).averageSize == 128 << 10)
    let p = ChunkingParameters(averageSize: 512 << 10)
    #expect(p.minSize == 128 << 10 && p.maxSize == 2 << 20)
    #expect(ChunkingParameters(minSize: 1, averageSize: 4, maxSize: 16) == nil)
    #expect(
      ChunkingParameters(minSize: p.minSize, averageSize: p.averageSize, maxSize: p.maxSize) == p)
  }

  @Test func gearTableIsFixed() {
    // The table is part of the format: changing it changes every index ever written.
    #expect(GearTable.values.count == 256)
    #expect(Set(GearTable.values).count == 256)
    #expect(GearTable.values[0] == Self.firstGearValue)
  }
  static let firstGearValue: UInt64 = 2_201_290_786_891_299_005

  @Test func cutsAreFixedByTheFormat() {
    // The same bytes must be cut at the same places by every version, or clients holding an
    // older index would reuse nothing: these lengths are part of `fastcdc` in format 1.
    let bytes = SplitMix64.bytes(count: 1 << 20, seed: 1)
    let lengths = bytes.withUnsafeBytes { Chunker.chunkLengths(of: $0, parameters: Self.small) }
    #expect(
      lengths == [
        96737, 143978, 137608, 88796, 62583, 107937, 108013, 27186, 125714, 78703, 71321,
      ])
  }

  @Test(arguments: [
    ChunkingParameters(averageSize: 64 << 10), ChunkingParameters(averageSize: 256 << 10),
  ])
  func chunksStayWithinMinAndMaxExceptTheLast(parameters: ChunkingParameters) {
    let bytes = SplitMix64.bytes(count: 12 << 20 + 12_345, seed: 7)
    let lengths = bytes.withUnsafeBytes { Chunker.chunkLengths(of: $0, parameters: parameters) }
    #expect(lengths.reduce(0, +) == bytes.count)
    #expect(lengths.count > 12 << 20 / parameters.maxSize)
    for length in lengths.dropLast() {
      #expect(length >= parameters.minSize && length <= parameters.maxSize)
    }
    #expect(lengths.last! >= 1 && lengths.last! <= parameters.maxSize)
    // Normalized chunking keeps the mean near the average.
    let mean = Double(bytes.count) / Double(lengths.count)
    #expect(mean > Double(parameters.averageSize) * 0.75)
    #expect(mean < Double(parameters.averageSize) * 1.5)
  }

  @Test func uniformBytesAreCutAtTheMaximum() {
    let bytes = [UInt8](repeating: 0, count: 1 << 20 + 5)
    let lengths = bytes.withUnsafeBytes { Chunker.chunkLengths(of: $0, parameters: Self.small) }
    #expect(lengths == [256 << 10, 256 << 10, 256 << 10, 256 << 10, 5])
  }

  @Test func emptyAndTinyInputs() {
    #expect(
      [UInt8]().withUnsafeBytes { Chunker.chunkLengths(of: $0, parameters: Self.small) } == [])
    #expect(
      [UInt8](repeating: 1, count: 3).withUnsafeBytes {
        Chunker.chunkLengths(of: $0, parameters: Self.small)
      } == [3])
  }

  @Test func sameCutsHoweverTheBytesAreSplit() {
    let bytes = SplitMix64.bytes(count: 6 << 20 + 999, seed: 42)
    let whole = bytes.withUnsafeBytes { Chunker.chunkLengths(of: $0, parameters: Self.small) }
    #expect(whole.count > 20)
    var sizes = SplitMix64(seed: 3)
    for pieceLimit in [1 << 10, 70_000, 1 << 20] {
      var chunker = Chunker(parameters: Self.small)
      var lengths: [Int] = []
      var current = 0
      var offset = 0
      bytes.withUnsafeBytes { raw in
        while offset < raw.count {
          // Some one-byte pieces, mostly random sizes up to the limit.
          let size = min(
            raw.count - offset,
            sizes.next() % 5 == 0 ? 1 : Int(sizes.next() % UInt64(pieceLimit)) + 1)
          var piece = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + size)])
          while let cut = chunker.nextCut(in: piece) {
            lengths.append(current + cut)
            current = 0
            piece = UnsafeRawBufferPointer(rebasing: piece[cut...])
          }
          current += piece.count
          offset += size
        }
      }
      if current > 0 { lengths.append(current) }
      #expect(current == chunker.pendingLength)
      #expect(lengths == whole, "pieces up to \(pieceLimit) bytes")
    }
  }

  @Test func builderGivesTheSameIndexHoweverTheBytesAreSplit() {
    let bytes = SplitMix64.bytes(count: 3 << 20 + 17, seed: 5)
    let whole = ChunkIndex(of: bytes, parameters: Self.small)
    var builder = ChunkIndexBuilder(parameters: Self.small)
    bytes.withUnsafeBytes { raw in
      var offset = 0
      var step = 1
      while offset < raw.count {
        let end = min(raw.count, offset + step)
        builder.append(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
        offset = end
        step = step * 3 + 1
      }
    }
    let built = builder.finish()
    #expect(built == whole)
  }
}
