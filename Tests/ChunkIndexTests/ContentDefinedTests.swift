import AssetWatchTestKit
import Foundation
import Testing

@testable import ChunkIndex

/// What content-defined chunking is for: edits change only the chunks near them.
@Suite struct ContentDefinedTests {
  static let small = ChunkingParameters(averageSize: 64 << 10)

  @Test func insertionInTheMiddleKeepsMostChunks() {
    let original = SplitMix64.bytes(count: 64 << 20, seed: 2024)
    let inserted = SplitMix64.bytes(count: 4 << 20, seed: 77)
    var edited = Array(original[..<(32 << 20 + 12_345)])
    edited += inserted
    edited += original[(32 << 20 + 12_345)...]
    let before = ChunkIndex(of: original, parameters: Self.small)
    let after = ChunkIndex(of: edited, parameters: Self.small)
    let afterHashes = after.chunkHashes
    let kept = before.chunks.filter { afterHashes.contains($0.hash) }.count
    #expect(before.chunks.count > 500)
    #expect(
      Double(kept) >= 0.9 * Double(before.chunks.count), "kept \(kept) of \(before.chunks.count)")
    // Fixed-size blocks would keep only the first half; the second half survives too.
    let secondHalfKept = before.chunks.filter {
      $0.offset > 40 << 20 && afterHashes.contains($0.hash)
    }.count
    #expect(secondHalfKept >= before.chunks.filter { $0.offset > 40 << 20 }.count - 1)
  }

  @Test func scatteredInPlaceChangesChangeOnlyTheChunksTouchingThem() {
    let original = SplitMix64.bytes(count: 64 << 20, seed: 31)
    var edited = original
    // Ten 64 KiB regions, about 1 % of the file, overwritten in place.
    var regions: [Range<Int>] = []
    var generator = SplitMix64(seed: 8)
    for i in 0..<10 {
      let start = i * (6 << 20) + Int(generator.next() % UInt64(5 << 20))
      regions.append(start..<(start + 64 << 10))
      let noise = SplitMix64.bytes(count: 64 << 10, seed: 1000 + UInt64(i))
      edited.replaceSubrange(start..<(start + 64 << 10), with: noise)
    }
    let before = ChunkIndex(of: original, parameters: Self.small)
    let after = ChunkIndex(of: edited, parameters: Self.small)
    // A cut depends on the 64 bytes ending at it, so a change reaches 64 bytes further.
    func touches(_ chunk: ChunkRecord) -> Bool {
      regions.contains { Int(chunk.offset) < $0.upperBound + 64 && $0.lowerBound < Int(chunk.end) }
    }
    // Cuts also depend on where their chunk started (min, the two masks), so right after a
    // region they can take a chunk or two to fall back in step: the chunks lost must touch a
    // region or end within two maximum chunks after one.
    let reach = 2 * Self.small.maxSize
    func near(_ chunk: ChunkRecord) -> Bool {
      touches(chunk)
        || regions.contains {
          $0.upperBound <= Int(chunk.offset) && Int(chunk.end) <= $0.upperBound + reach
        }
    }
    let afterHashes = after.chunkHashes
    let beforeHashes = before.chunkHashes
    let lost = before.chunks.filter { !afterHashes.contains($0.hash) }
    let new = after.chunks.filter { !beforeHashes.contains($0.hash) }
    #expect(lost.allSatisfy(near), "lost far away: \(lost.filter { !near($0) }.map(\.offset))")
    #expect(new.allSatisfy(near), "new far away: \(new.filter { !near($0) }.map(\.offset))")
    // Every chunk touching a region changes, and the ones lost beyond those are few.
    let touched = before.chunks.filter(touches)
    #expect(touched.allSatisfy { !afterHashes.contains($0.hash) })
    let lostBytes = lost.map(\.length).reduce(0, +)
    let touchedBytes = touched.map(\.length).reduce(0, +)
    #expect(
      Double(lostBytes) <= 1.5 * Double(touchedBytes), "lost \(lostBytes), touched \(touchedBytes)")
    #expect(touched.count >= 10 && touched.count <= 40)
    // About 1 % changed; well under 5 % of the file must move.
    #expect(lostBytes < original.count / 20)
  }

  @Test func buildOfAFileEqualsTheIndexOfItsBytes() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("chunkindex-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Larger than the 4 MiB read buffer, so chunks span reads.
    let bytes = SplitMix64.bytes(count: 9 << 20 + 4321, seed: 12)
    let file = folder.appendingPathComponent("big.bin")
    try Data(bytes).write(to: file)
    let built = try ChunkIndex.build(path: file.path)
    #expect(built == ChunkIndex(of: bytes, parameters: .forFile(size: Int64(bytes.count))))
    #expect(built.parameters.averageSize == 64 << 10)
    let larger = ChunkingParameters(averageSize: 512 << 10)
    #expect(
      try ChunkIndex.build(path: file.path, parameters: larger)
        == ChunkIndex(of: bytes, parameters: larger))

    let empty = folder.appendingPathComponent("empty.bin")
    try Data().write(to: empty)
    #expect(try ChunkIndex.build(path: empty.path).chunks.isEmpty)
  }

  @Test func buildRefusesWhatItCannotRead() {
    let missing = "/nonexistent-\(UUID().uuidString)/file.bin"
    #expect(throws: ChunkIndexError("\(missing): no such file or directory")) {
      try ChunkIndex.build(path: missing)
    }
    #expect(throws: ChunkIndexError("/tmp: not a regular file")) {
      try ChunkIndex.build(path: "/tmp")
    }
  }
}
