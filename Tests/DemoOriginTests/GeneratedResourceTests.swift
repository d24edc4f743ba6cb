import AssetWatchTestKit
import DemoOrigin
import Foundation
import Testing

@Suite("Generated resources: large, streamed, rate-limited", .serialized)
struct GeneratedResourceTests {
  @Test func generatedBytesAreDeterministicAndRandomAccess() {
    let content = GeneratedBytes(length: 1000, seed: 7)
    let whole = content.bytes(in: 0..<1000)
    #expect(whole == GeneratedBytes(length: 1000, seed: 7).bytes(in: 0..<1000))
    #expect(content.bytes(in: 13..<501) == Array(whole[13..<501]))
    #expect(whole != GeneratedBytes(length: 1000, seed: 8).bytes(in: 0..<1000))
    #expect(Set(whole).count > 200)  // not a constant fill
  }

  /// 256 MiB through the origin raise this process's peak RSS by far less than the body: held
  /// in memory, it would raise it by at least 256 MiB. The bound (128 MiB) leaves room for the
  /// suites that run beside this one in the same process (the peak is process-wide; 64 MiB
  /// against a 32 MiB bound was too close to their own allocations).
  @Test func streams256MiBWithBoundedMemory() async throws {
    let size = 256 << 20
    try await withOrigin { origin in
      let content = GeneratedBytes(length: size, seed: 42)
      await origin.setGeneratedResource("/big.bin", content: content)
      try await withTemporaryDirectory(prefix: "demo-origin") { scratch in
        let folder = scratch.url
        let file = folder.appendingPathComponent("big.bin").path
        try ProcessMemory.resetPeak()
        let before = try ProcessMemory.peakResidentBytes()
        let (code, out, _) = try await Curl.run([
          "-sS", "--noproxy", "*", "-o", file, "-w", "%{http_code} %{size_download}",
          origin.baseURL + "/big.bin",
        ])
        let growth = try ProcessMemory.peakResidentBytes() - before
        #expect(code == 0)
        #expect(out == "200 \(size)")
        #expect(growth < 128 << 20, "peak RSS grew by \(growth) bytes while streaming")
        // The file's ends, read without loading the whole of it.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        #expect(try handle.seekToEnd() == UInt64(size))
        try handle.seek(toOffset: 0)
        #expect(try handle.read(upToCount: 4096) == Data(content.bytes(in: 0..<4096)))
        try handle.seek(toOffset: UInt64(size - 4096))
        #expect(try handle.read(upToCount: 4096) == Data(content.bytes(in: (size - 4096)..<size)))
      }
    }
  }

  @Test func rateLimitedBodyArrivesInSeveralReads() async throws {
    try await withOrigin { origin in
      // Ten paced pieces (20 KiB every 50 ms): a loaded machine may merge a few of them into
      // one read when the origin catches up on its schedule, and five reads still show pacing.
      let content = GeneratedBytes(length: 200 * 1024, seed: 1)
      await origin.setGeneratedResource("/slow.bin", content: content, bytesPerSecond: 400 * 1024)
      try await withTemporaryDirectory(prefix: "demo-origin") { scratch in
        let folder = scratch.url
        let trace = folder.appendingPathComponent("trace").path
        let (code, _, _) = try await Curl.run([
          "-sS", "--noproxy", "*", "-o", "/dev/null", "--trace-ascii", trace,
          origin.baseURL + "/slow.bin",
        ])
        #expect(code == 0)
        let reads = try String(contentsOfFile: trace, encoding: .utf8)
          .components(separatedBy: "\n").filter { $0.hasPrefix("<= Recv data") }.count
        #expect(reads >= 5, "only \(reads) reads")
      }
    }
  }

  @Test func generatedResourceServesRanges() async throws {
    try await withOrigin { origin in
      let content = GeneratedBytes(length: 1 << 20, seed: 3)
      await origin.setGeneratedResource("/g.bin", content: content)
      let result = try await Curl.fetch(
        origin.baseURL + "/g.bin", ["-H", "Range: bytes=1000-1999"])
      #expect(result.status == 206)
      #expect(result.body == Data(content.bytes(in: 1000..<2000)))
      #expect(result.header("Content-Range") == "bytes 1000-1999/1048576")
    }
  }
}
