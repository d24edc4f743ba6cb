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
}
