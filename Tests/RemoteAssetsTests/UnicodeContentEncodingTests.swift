import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// A `Content-Encoding` value is compared as the client's gzip decoder reads it: trimmed of ASCII
/// spaces and tabs only, case-insensitively, whole. A value with a Unicode space (`gzip` + U+00A0)
/// is not gzip to the decoder, so it is not gzip to the fetcher either: refused, never committed
/// as raw or cut gzip.
@Suite struct UnicodeContentEncodingTests {
  @Test func onlyASCIISpaceAndTabAreTrimmed() throws {
    #expect(try HTTPFetcher.contentCoding([" gzip\t"], decoded: true) == .decodedGzip)
    #expect(try HTTPFetcher.contentCoding(["GZip"], decoded: true) == .decodedGzip)
    #expect(try HTTPFetcher.contentCoding(["X-GZIP "], decoded: false) == .rawGzip)
    #expect(try HTTPFetcher.contentCoding(["\tIdentity "], decoded: true) == .identity)
    for value in [
      "gzip\u{A0}", "\u{A0}gzip", "gzip\u{2003}", "gzip\u{3000}", "identity\u{A0}", "gzip\u{85}",
    ] {
      for decoded in [true, false] {
        let error = #expect(throws: FetchError.self, "\(value.unicodeScalars.map(\.value))") {
          try HTTPFetcher.contentCoding([value], decoded: decoded)
        }
        #expect(error?.kind == .invalid)
      }
    }
  }

  /// The reviewer's case: a gzip request answered with `Content-Encoding: gzip<NBSP>`,
  /// `Connection: close` and the first 20 bytes of a gzip stream. The decoder leaves the bytes
  /// as they are; they must not be committed. (A binary asset: no format check stands behind.)
  @Test func aGzipBodyLabelledWithANonBreakingSpaceIsRefused() async throws {
    try await HostileOriginTests.Fixture.with(format: .binary) { f in
      let gzipStart: [UInt8] = [
        0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
        0xAB, 0x56, 0x4A, 0xCF, 0xCF, 0x4F, 0x51, 0xB2, 0x52, 0x28,
      ]
      let head =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        + "Content-Encoding: gzip\u{A0}\r\nConnection: close\r\n\r\n"
      let error = try await f.failWith(.raw(Array(head.utf8) + gzipStart))
      #expect(error.kind == .invalid, "\(error)")
      #expect(error.message.contains("Content-Encoding"), "\(error)")
      let request = try #require(await f.origin.requests(path: "/a.json").last)
      #expect(request.header("Accept-Encoding") == "gzip", "the request asked for gzip")
    }
  }
}
