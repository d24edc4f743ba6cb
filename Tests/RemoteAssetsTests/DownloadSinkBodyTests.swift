import AssetWatchTestKit
import Foundation
import Testing

@testable import RemoteAssets

/// A small body read back from its sink (a manifest, signed metadata): what was written, and
/// after a 304 nothing, without making a file for it.
@Suite struct DownloadSinkBodyTests {
  /// The partial files in the sink cache's `tmp/`.
  static func partials(in dir: URL) throws -> [String] {
    let tmp = dir.appendingPathComponent("sink-cache").appendingPathComponent(CacheLayout.tmp)
    return try FileManager.default.contentsOfDirectory(atPath: tmp.path).filter {
      $0.hasSuffix(".part")
    }
  }

  @Test func aBodyIsReadBackAsWritten() throws {
    try withTemporaryDirectory { (dir: TemporaryDirectory) in
      let sink = try makeSink(in: dir.url, maxBytes: 1 << 20, expectedSize: nil)
      defer { sink.discard() }
      let body = Data(#"{"version":"r2","assets":[]}"#.utf8)
      try sink.write(body.prefix(10))
      try sink.write(body.dropFirst(10))
      #expect(try sink.readBody() == body)
      // The body made a file: unnamed where the file system allows it, else in `tmp/`.
      let (open, unnamed) = sink.withPartial { ($0.fd >= 0, $0.isUnnamed) }
      #expect(open)
      #expect(try Self.partials(in: dir.url).count == (unnamed ? 0 : 1))
    }
  }

  @Test func nothingWrittenReadsEmptyAndMakesNoFile() throws {
    try withTemporaryDirectory { (dir: TemporaryDirectory) in
      let sink = try makeSink(in: dir.url, maxBytes: 1 << 20, expectedSize: nil)
      defer { sink.discard() }
      #expect(try sink.readBody() == Data())
      #expect(try Self.partials(in: dir.url).isEmpty, "a 304 leaves no file behind")
    }
  }
}
