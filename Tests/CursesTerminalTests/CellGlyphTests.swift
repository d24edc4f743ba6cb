import Glibc
import Testing

@testable import CursesTerminal

@Suite struct CellGlyphTests {
  init() {
    // wcwidth needs a UTF-8 locale to know that CJK characters are wide.
    _ = setlocale(LC_ALL, "C.UTF-8")
  }

  private func glyph(_ text: String, unicode: Bool = true, columnsLeft: Int = 10) -> [wchar_t] {
    CellGlyph.characters(for: text, unicode: unicode, columnsLeft: columnsLeft, maxCharacters: 5)
  }

  @Test func plainTextIsNulTerminated() {
    #expect(glyph("a") == [0x61, 0])
  }

  @Test func combiningCharactersFollowTheBase() {
    #expect(glyph("e\u{301}") == [0x65, 0x301, 0])
  }

  @Test func controlCharactersBecomeAQuestionMark() {
    #expect(glyph("\u{1B}") == [0x3F, 0])
    #expect(glyph("\u{9B}") == [0x3F, 0])
  }

  @Test func asciiModeReplacesNonAscii() {
    #expect(glyph("─", unicode: false) == [0x3F, 0])
    #expect(glyph("e\u{301}", unicode: false) == [0x65, 0])
  }

  @Test func wideCharacterNeedsTwoColumns() {
    #expect(glyph("宽", columnsLeft: 2) == [0x5BBD, 0])
    #expect(glyph("宽", columnsLeft: 1) == [0x3F, 0])
  }

  @Test func emptyTextDrawsASpace() {
    #expect(glyph("") == [0x20, 0])
  }

  @Test func longClustersAreCappedAtTheCurseLimit() {
    let text = "a" + String(repeating: "\u{301}", count: 8)
    #expect(glyph(text).count == 6)
  }
}
