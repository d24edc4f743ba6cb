import AssetWatchTestKit
import Crypto
import Foundation
import NIOCore
import Testing

@testable import RemoteAssets

/// A delta update's reused chunks: copied from a cached copy into the download's file by the
/// kernel (or by read and write where it cannot), and hashed from what the file then holds.
@Suite struct SinkCopyTests {
  /// Bytes that differ at every offset (a copy from the wrong place would show).
  static func pattern(_ count: Int, seed: UInt64) -> [UInt8] {
    OverlappedSHA256Tests.bytes(count, seed: seed)
  }

  /// Writes `source`, then runs `body` with a sink (kernel copies on or off) and the source's
  /// open descriptor.
  func withSource(
    _ source: [UInt8], kernelCopies: Bool, maxBytes: Int64 = 1 << 40,
    _ body: (DownloadSink, Int32, TemporaryDirectory) throws -> Void
  ) throws {
    try withTemporaryDirectory { (dir: TemporaryDirectory) in
      let path = dir.url("cached.bin").path
      let out = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
      try #require(out >= 0)
      let wrote = source.withUnsafeBytes { write(out, $0.baseAddress, $0.count) }
      close(out)
      try #require(wrote == source.count)
      let fd = open(path, O_RDONLY)
      try #require(fd >= 0)
      defer { close(fd) }
      let sink = try makeSink(in: dir.url, maxBytes: maxBytes, expectedSize: nil)
      defer { sink.discard() }
      sink.withPartial { $0.kernelCopies = kernelCopies }
      try body(sink, fd, dir)
    }
  }

  /// The SHA-256 of the file at `path`, read a megabyte at a time (the tests in this process
  /// share one peak RSS, which another suite measures).
  static func fileHash(_ path: String) throws -> (sha256: String, size: Int) {
    let fd = open(path, O_RDONLY)
    try #require(fd >= 0)
    defer { close(fd) }
    var hasher = SHA256()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var size = 0
    while true {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      try #require(n >= 0)
      if n == 0 { break }
      buffer.withUnsafeBytes {
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<n]))
      }
      size += n
    }
    return (SHA256Text.hex(hasher.finalize()), size)
  }

  /// Fetched bytes, then ranges of the cached copy (more than the hash queue holds, so the read
  /// back runs beside the copy), then fetched bytes: the file and its hash are the whole.
  @Test(arguments: [true, false])
  func copiedRangesLandInOrderAndAreHashed(kernelCopies: Bool) throws {
    let source = Self.pattern(12 << 20, seed: 7)
    try withSource(source, kernelCopies: kernelCopies) { sink, fd, _ in
      let head = Self.pattern(3000, seed: 1)
      let tail = Self.pattern(70_000, seed: 2)
      try sink.write(ByteBuffer(bytes: head))
      try sink.appendCopy(of: 10 << 20, from: fd, at: 2 << 20)
      try sink.appendCopy(of: 12345, from: fd, at: 17)
      try sink.write(ByteBuffer(bytes: tail))
      // The expected bytes, hashed piece by piece (never joined into one more copy).
      var expected = SHA256()
      for piece in [
        head[...], source[(2 << 20)..<(12 << 20)], source[17..<(17 + 12345)], tail[...],
      ] {
        piece.withUnsafeBytes { expected.update(bufferPointer: $0) }
      }
      let expectedHash = SHA256Text.hex(expected.finalize())
      let expectedSize = head.count + (10 << 20) + 12345 + tail.count

      let digest = try sink.digest()
      #expect(digest.size == Int64(expectedSize))
      #expect(digest.sha256 == expectedHash)
      #expect(sink.reusedBytes == Int64((10 << 20) + 12345))
      let written = try Self.fileHash(sink.withPartial { $0.openablePath })
      #expect(written.size == expectedSize)
      #expect(written.sha256 == expectedHash, "the file holds what was hashed")
      #expect(sink.withPartial { $0.kernelCopies } == kernelCopies)
    }
  }

  /// A cached copy shorter than the plan says (truncated since it was indexed): a storage
  /// error, never a file that looks complete.
  @Test(arguments: [true, false])
  func aCachedCopyThatEndsEarlyIsAnError(kernelCopies: Bool) throws {
    let source = Self.pattern(1 << 20, seed: 3)
    try withSource(source, kernelCopies: kernelCopies) { sink, fd, _ in
      #expect {
        try sink.appendCopy(of: 1 << 20, from: fd, at: 4096)
      } throws: { error in
        (error as? FetchError)?.kind == .storage
      }
    }
  }

  /// A copy past `maxBytes` is refused before a byte of it is written.
  @Test func aCopyPastMaxBytesIsRefused() throws {
    let source = Self.pattern(1 << 20, seed: 4)
    try withSource(source, kernelCopies: true, maxBytes: 1000) { sink, fd, _ in
      try sink.appendCopy(of: 600, from: fd, at: 0)
      #expect {
        try sink.appendCopy(of: 600, from: fd, at: 600)
      } throws: { error in
        (error as? FetchError)?.kind == .tooLarge
      }
      #expect(sink.bytesWritten == 600)
    }
  }
}

extension PartialFile {
  /// A path that opens this file while it is open, to read it whole by path: the descriptor's
  /// `/proc/self/fd` link while the file has no name.
  var openablePath: String { isUnnamed ? "/proc/self/fd/\(fd)" : folder.child(name) }
}
