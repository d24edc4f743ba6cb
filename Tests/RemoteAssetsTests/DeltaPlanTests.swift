import ChunkIndex
import Crypto
import Foundation
import Testing

@testable import RemoteAssets

/// ``DeltaPlan`` as a pure decision: which chunks are copied from which cached copy, which are
/// fetched, and how neighbours merge.
@Suite struct DeltaPlanTests {
  /// An index of chunks given as (length, label); a label stands for the chunk's content.
  static func index(_ chunks: [(Int, String)]) throws -> ChunkIndex {
    func hex(_ text: String) -> String {
      SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
    let size = chunks.reduce(0) { $0 + $1.0 }
    var text = "assetwatch-chunks 1\nfastcdc 16384 65536 262144\nsize \(size)\n"
    text += "sha256 \(hex(chunks.map(\.1).joined(separator: ",")))\n"
    for (length, label) in chunks { text += "\(length) \(hex(label))\n" }
    return try ChunkIndex(parsing: Array(text.utf8))
  }

  @Test func heldChunksAreCopiedInRunsAndTheRestFetchedInRanges() throws {
    let old = try Self.index([(20000, "a"), (30000, "b"), (40000, "c"), (50000, "d")])
    let new = try Self.index([(20000, "a"), (30000, "b"), (25000, "x"), (26000, "y"), (50000, "d")])
    let plan = DeltaPlan(target: new, local: [old])
    #expect(
      plan.steps.map(Self.shape) == [
        "copy 0 @0 +50000", "fetch 50000..<101000 (2)", "copy 0 @90000 +50000",
      ])
    #expect(plan.fetchBytes == 51000)
    #expect(plan.reusedBytes == 100000)
    #expect(plan.fetchCount == 1)
  }

  @Test func chunksComeFromWhicheverCopyHoldsThem() throws {
    let current = try Self.index([(20000, "a"), (20000, "B")])
    let previous = try Self.index([(20000, "A"), (20000, "b"), (20000, "c")])
    let new = try Self.index([(20000, "a"), (20000, "b"), (20000, "c"), (20000, "z")])
    let plan = DeltaPlan(target: new, local: [current, previous])
    #expect(
      plan.steps.map(Self.shape) == [
        "copy 0 @0 +20000", "copy 1 @20000 +40000", "fetch 60000..<80000 (1)",
      ])
  }

  @Test func neighbouringMissingChunksMergeUpToTheRangeLimit() throws {
    let new = try Self.index((0..<10).map { (100_000, "n\($0)") })
    let plan = DeltaPlan(target: new, local: [], maxRangeBytes: 250_000)
    #expect(plan.fetchCount == 5, "two 100 kB chunks per 250 kB range")
    #expect(plan.fetchBytes == 1_000_000)
    #expect(plan.reusedBytes == 0)
  }

  @Test func aWhollyHeldFileStillFetchesItsLastChunk() throws {
    let old = try Self.index([(20000, "a"), (20000, "b"), (5000, "c")])
    let new = try Self.index([(20000, "b"), (20000, "a"), (5000, "c")])
    let plan = DeltaPlan(target: new, local: [old])
    #expect(
      plan.steps.map(Self.shape) == [
        "copy 0 @20000 +20000", "copy 0 @0 +20000", "fetch 40000..<45000 (1)",
      ],
      "the response to one range names the new version's validators")
  }

  @Test func aHashHeldWithAnotherLengthIsNotReused() throws {
    let old = try Self.index([(20000, "a"), (30000, "b")])
    let new = try Self.index([(20000, "a"), (31000, "b")])
    let plan = DeltaPlan(target: new, local: [old])
    #expect(plan.steps.map(Self.shape) == ["copy 0 @0 +20000", "fetch 20000..<51000 (1)"])
  }

  static func shape(_ step: DeltaPlan.Step) -> String {
    switch step {
    case .copy(let source, let offset, let length): "copy \(source) @\(offset) +\(length)"
    case .fetch(let range, let chunks): "fetch \(range) (\(chunks.count))"
    }
  }
}
