import Crypto
import NIOCore
import Testing

@testable import RemoteAssets

/// The overlapped hash must equal a plain SHA-256 of the same bytes, whatever the chunking, across
/// the switch from inline to queued hashing, and after snapshots and resets.
@Suite struct OverlappedSHA256Tests {
  /// Deterministic bytes (a simple LCG), so a failure is reproducible.
  static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var x = seed
    return (0..<count).map { _ in
      x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: x >> 33)
    }
  }

  static func hex(_ data: [UInt8]) -> String { SHA256.hash(data: data).hexString }

  @Test(arguments: [1, 4096, 65536, 1_000_003])
  func matchesAPlainHashForAnyChunking(chunk: Int) {
    // Larger than the inline part and than the in-flight budget, so all three paths run.
    let data = Self.bytes(
      OverlappedSHA256.inlineBytes + OverlappedSHA256.maxBytesInFlight + 777, seed: UInt64(chunk))
    let hasher = OverlappedSHA256()
    var offset = 0
    var step = chunk
    while offset < data.count {
      let end = min(offset + step, data.count)
      if offset % 2 == 0 {
        hasher.update(ByteBuffer(bytes: data[offset..<end]))
      } else {
        data[offset..<end].withUnsafeBytes { hasher.update(copying: $0) }
      }
      offset = end
      step = chunk == 1 ? 1 + offset % 7919 : chunk  // vary tiny chunks so the test stays fast
    }
    #expect(hasher.snapshot().finalize().hexString == Self.hex(data))
  }

  @Test func snapshotLeavesTheRunningHashAndResetStartsOver() {
    let first = Self.bytes(3 << 20, seed: 7)
    let second = Self.bytes(2 << 20, seed: 8)
    let hasher = OverlappedSHA256()
    hasher.update(ByteBuffer(bytes: first))
    #expect(hasher.snapshot().finalize().hexString == Self.hex(first))
    hasher.update(ByteBuffer(bytes: second))
    #expect(hasher.snapshot().finalize().hexString == Self.hex(first + second))
    hasher.reset()
    hasher.update(ByteBuffer(bytes: second))
    #expect(hasher.snapshot().finalize().hexString == Self.hex(second))
  }
}
