import Testing

@testable import TerminalCore

/// Columns taken by text in every script, whatever the locale.
@Suite struct DisplayWidthTests {
  @Test func displayWidthOfScripts() {
    #expect(DisplayWidth.of("model") == 5)
    #expect(DisplayWidth.of("設定") == 4)
    #expect(DisplayWidth.of("한국") == 4)
    #expect(DisplayWidth.of("ｆｕｌｌ") == 8)
    #expect(DisplayWidth.of("e\u{301}") == 1)  // e + combining acute
    #expect(DisplayWidth.of("a\u{200B}b") == 2)  // zero-width space
    #expect(DisplayWidth.of("🚀") == 2)
  }

  /// ASCII text and scalars below U+0300 are counted without the tables: control characters take
  /// no column, everything else one, the same for a string, a grapheme and a scalar.
  @Test func asciiAndLatinWidthsWithoutTheTables() {
    for value in UInt32(0)..<0x300 {
      let scalar = Unicode.Scalar(value)!
      let expected = value < 0x20 || (0x7F...0x9F).contains(value) ? 0 : 1
      #expect(DisplayWidth.of(scalar) == expected, "U+\(String(value, radix: 16))")
      #expect(DisplayWidth.of(Character(scalar)) == expected, "U+\(String(value, radix: 16))")
      #expect(DisplayWidth.of(String(scalar)) == expected, "U+\(String(value, radix: 16))")
    }
    #expect(DisplayWidth.of("a\tb\u{7F}c") == 3)
    #expect(DisplayWidth.of("\r\n") == 0)
    #expect(DisplayWidth.of(Character("\r\n")) == 0)
    #expect(DisplayWidth.of("ab\u{300}") == 2)  // ASCII, then a combining mark on b
    #expect(DisplayWidth.of("id 設定") == 7)
    #expect(DisplayWidth.of("") == 0)
  }
}
