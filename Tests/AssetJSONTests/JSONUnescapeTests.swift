import Testing

@testable import AssetJSON

/// The string pieces every reader shares.
@Suite struct JSONUnescapeTests {
  /// The scalar of the escape at the start of `text`, and the index after it.
  func scalar(_ text: String) throws(JSONUnescape.EscapeFailure) -> String {
    let bytes = Array(text.utf8)
    var index = 0
    let scalar = try JSONUnescape.unicodeScalar(in: bytes, at: &index)
    return "\(scalar) \(index)"
  }

  /// The escape at the start of `text` fails with `expected`, leaving the index at `index`.
  func expectFailure(
    _ text: String, _ expected: JSONUnescape.EscapeFailure, at index: Int,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let bytes = Array(text.utf8)
    var at = 0
    do throws(JSONUnescape.EscapeFailure) {
      let scalar = try JSONUnescape.unicodeScalar(in: bytes, at: &at)
      Issue.record("read \(scalar)", sourceLocation: sourceLocation)
    } catch {
      #expect(error == expected, sourceLocation: sourceLocation)
      #expect(at == index, sourceLocation: sourceLocation)
    }
  }

  @Test func oneLetterEscapes() {
    let expected: [Character: UInt8] = [
      "\"": 0x22, "\\": 0x5C, "/": 0x2F, "b": 0x08, "f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09,
    ]
    for letter in UInt8(0)...0xFF {
      #expect(JSONUnescape.simple(letter) == expected[Character(UnicodeScalar(letter))])
    }
  }

  @Test func unicodeEscapesAndSurrogatePairs() throws {
    #expect(try scalar("0041") == "A 4")
    #expect(try scalar("00e9x") == "é 4")
    #expect(try scalar("FFFD") == "\u{FFFD} 4")
    #expect(try scalar(#"d83d\ude00"#) == "😀 10")
    #expect(try scalar(#"D834\uDD1E"#) == "𝄞 10")
    #expect(try scalar(#"dbff\udfff"#) == "\u{10FFFF} 10")
  }

  @Test func failuresSayWhereTheyAre() {
    expectFailure("12", .short, at: 0)
    expectFailure("12g4", .notHex(at: 2), at: 0)
    expectFailure("+123", .notHex(at: 0), at: 0)
    expectFailure("dc00", .loneLow(0xDC00), at: 4)
    expectFailure("d800", .loneHigh(0xD800), at: 4)
    expectFailure(#"d800\n"#, .loneHigh(0xD800), at: 4)
    expectFailure(#"d800\u0041"#, .notLow, at: 10)
    expectFailure(#"d800\ud800"#, .notLow, at: 10)
    expectFailure(#"d800\u00"#, .short, at: 6)
    expectFailure(#"d800\u00x0"#, .notHex(at: 8), at: 6)
  }

  @Test func utf8IsValidated() {
    func check(_ bytes: [UInt8]) -> String? {
      bytes.withUnsafeBytes { JSONUnescape.string(utf8: $0, ascii: false) }
    }
    #expect(check(Array("é😀 plain".utf8)) == "é😀 plain")
    #expect(check([]) == "")
    #expect(check(Array("\u{FFFD}".utf8)) == "\u{FFFD}")
    for bad: [UInt8] in [
      [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0x80],
    ] {
      #expect(check(bad) == nil, "\(bad)")
    }
  }
}
