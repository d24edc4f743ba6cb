import AssetWatchTestKit
import Foundation
import Testing

@testable import AssetJSON

/// `JSONScanner.isPlainDocument`, the format check's fast path: it may say "not sure" for valid
/// JSON, but it must never accept a document Foundation's `JSONSerialization` refuses.
@Suite struct JSONDocumentCheckTests {
  func plain(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes(JSONScanner.isPlainDocument) }
  func plain(_ text: String) -> Bool { plain(Array(text.utf8)) }

  func foundationReads(_ bytes: [UInt8]) -> Bool {
    (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
  }

  /// A document with every kind of value, escapes, non-ASCII text and numbers of each form.
  static let seed = #"""
    {"id": "a1", "n": [0, -1, 12.5, -0.25, 1e3, 2E-2, 123456789012345678901234567890],
     "ok": true, "no": false, "none": null, "nested": {"deep": [[{"x": "é\u00e9\"\\\/\n"}]]},
     "text": "plain ascii text", "emoji": "😀\ud83d\ude00", "empty": {}, "list": []}
    """#

  @Test func acceptsValidDocumentsFoundationReads() {
    for text in [
      Self.seed, "0", "-0", "1.5", "\"s\"", "true", "null", "[]", "{}", "  [1, 2]  ",
      #"{"a": 1, "a": 2}"#, "1e-400", "123456789012345678901234567890", #""\u0000""#,
      String(repeating: "[", count: 60) + String(repeating: "]", count: 60),
    ] {
      #expect(plain(text), "\(text)")
      #expect(foundationReads(Array(text.utf8)), "\(text)")
    }
  }

  @Test func leavesTheRestToFoundation() {
    for text in [
      "1e400", "[-1e309]", "{} x", "\u{FEFF}{}", "01", "1.", "-", "[1,]", #"{"a" 1}"#, "nul",
      #""\ud800""#, "\"a\u{1}b\"", "", "   ", #"{"a": 1"#, "[1 2]", "'x'",
      String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
      "1" + String(repeating: "0", count: 400),
    ] {
      #expect(!plain(text), "\(text)")
    }
    for bad: [UInt8] in [[0xFF], [0xC3, 0x28], [0xED, 0xA0, 0x80]] {
      #expect(!plain([0x22] + bad + [0x22]), "\(bad)")
    }
  }

  /// Thousands of mutations of the seed (bytes replaced, dropped, inserted from JSON's own
  /// alphabet): whatever the fast check accepts, Foundation reads too.
  @Test func neverAcceptsWhatFoundationRefuses() {
    var random = SplitMix64(seed: 0x5EED)
    let seed = Array(Self.seed.utf8)
    let alphabet = Array(#"{}[],:"\-+.eE019 tnfu\#u{7F}"#.utf8) + [0x00, 0x80, 0xC3, 0xFF]
    var accepted = 0
    var refused = 0
    for _ in 0..<20_000 {
      var bytes = seed
      for _ in 0..<Int(random.next() % 3 + 1) {
        let at = Int(random.next() % UInt64(bytes.count))
        let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
        switch random.next() % 3 {
        case 0: bytes[at] = byte
        case 1: bytes.remove(at: at)
        default: bytes.insert(byte, at: at)
        }
      }
      if plain(bytes) {
        accepted += 1
        #expect(foundationReads(bytes), "\(String(decoding: bytes, as: UTF8.self))")
      } else {
        refused += 1
      }
    }
    // Both answers were exercised.
    #expect(accepted > 1_000)
    #expect(refused > 1_000)
  }
}
