import AssetWatchTestKit
import DemoOrigin
import Foundation
import RemoteAssetsTestKit
import Testing

@testable import RemoteAssets

/// The format check reads a body once, from memory (`FormatValidator.problem(format:data:)`);
/// its verdicts and reasons are the file reader's, for every format.
@Suite struct FormatCheckTests {
  static let bodies: [(String, AssetFormat, Data)] = {
    let png = PNGEncoder.image(width: 4, height: 4) { x, y in (UInt8(x), UInt8(y), 0) }
    var badPNG = png
    badPNG[20] ^= 0xFF  // the IHDR's width: its CRC no longer matches
    return [
      ("json", .json, Data(#"{"a": [1, 2.5, "x"], "b": null}"#.utf8)),
      ("json-big-number", .json, Data("[1e400]".utf8)),
      ("json-bom", .json, Data("\u{FEFF}{}".utf8)),
      ("json-broken", .json, Data(#"{"a": }"#.utf8)),
      ("json-empty", .json, Data()),
      ("text", .text, Data("plain text é".utf8)),
      ("text-bad", .text, Data([0x61, 0xFF, 0x62])),
      ("png", .png, png),
      ("png-bad", .png, badPNG),
      ("png-short", .png, png.prefix(20)),
      ("jpeg-bad", .jpeg, Data([0xFF, 0xD8, 0x00, 0x00])),
      ("jpeg-not", .jpeg, Data("GIF89a".utf8)),
      ("binary", .binary, Data([0, 1, 2])),
    ]
  }()

  @Test func fromMemoryAsFromTheFile() throws {
    try withTemporaryDirectory { folder in
      var verdicts: [String?] = []
      for (name, format, data) in Self.bodies {
        let path = try folder.file(name, data).path
        let fromFile = FormatValidator.problem(format: format, path: path)
        let fromMemory = FormatValidator.problem(format: format, data: data)
        #expect(fromMemory == fromFile, "\(name)")
        verdicts.append(fromMemory)
      }
      // The cases cover both verdicts.
      #expect(verdicts.contains(nil))
      #expect(verdicts.filter { $0 != nil }.count >= 8)
    }
  }
}

/// Through the engine from a real origin: a PNG or JPEG asset's header is checked from the
/// download's own descriptor (the file may have no name), and bytes that are not the format are
/// refused with the reader's reason while the last good copy stays served.
@Suite struct FormatCheckEngineTests {
  @Test(arguments: [AssetFormat.png, .jpeg])
  func aBodyOfAnotherFormatIsRefusedAndTheLastGoodCopyStays(format: AssetFormat) async throws {
    let good =
      format == .png
      ? PNGEncoder.image(width: 4, height: 4) { x, y in (UInt8(x), UInt8(y), 0) }
      : JPEGEncoder.flatGray(level: 96)
    let type = format == .png ? "image/png" : "image/jpeg"
    try await withOrigin { origin in
      await origin.setResource("/i", body: good, contentType: type)
      let asset = AssetDefinition(
        id: "i", remote: URL(string: "\(origin.baseURL)/i"), format: format, timeout: 30)
      try await withEngine([asset]) { engine, _ throws in
        #expect(await engine.refresh("i").isUpdated)
        await origin.setResource("/i", body: Data("<html>moved</html>".utf8), contentType: type)
        guard case .failed(let error) = await engine.refresh("i") else {
          Issue.record("the page was taken for the image")
          return
        }
        #expect(error.kind == .invalid)
        #expect(error.message.contains(format == .png ? "not a PNG" : "JPEG"), "\(error.message)")
        #expect(try await engine.data("i") == good)
      }
    }
  }
}
