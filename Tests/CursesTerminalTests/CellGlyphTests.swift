import CNCurses
import Glibc
import TerminalCore
import Testing

@testable import CursesTerminal

@Suite struct CellGlyphTests {
  init() {
    // wcwidth needs a UTF-8 locale to know that CJK characters are wide.
    _ = setlocale(LC_ALL, "C.UTF-8")
  }

  /// What is drawn in the glyph's first column, for a cell the buffer made `width` columns wide.
  private func glyph(_ text: String, unicode: Bool = true, width: Int = 1) -> [wchar_t] {
    CellGlyph.cells(for: text, unicode: unicode, assumedWidth: width, maxCharacters: 5)[0]
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
    #expect(glyph("宽", width: 2) == [0x5BBD, 0])
    #expect(glyph("宽", width: 1) == [0x3F, 0])  // cut by the right edge
  }

  @Test func emptyTextDrawsASpace() {
    #expect(glyph("") == [0x20, 0])
  }

  @Test func longClustersAreCappedAtTheCurseLimit() {
    let text = "a" + String(repeating: "\u{301}", count: 8)
    #expect(glyph(text).count == 6)
  }

  /// The C library's widths as glibc 2.39 has them for the emoji the buffer's table disagrees on.
  private static func libc(_ character: wchar_t) -> Int32 {
    switch character {
    case 0x2B50: 2  // ⭐ (the table: 1)
    case 0x1F6E0, 0x1F321, 0x2764: 1  // 🛠 🌡 ❤ (the table: 2, ❤ with U+FE0F)
    case 0x1FAE8: -1  // unknown to the C library
    case 0x5BBD: 2
    case 0xFE0F, 0x301: 0
    default: 1
    }
  }

  private func drawable(_ text: String, width: Int) -> [[wchar_t]] {
    CellGlyph.drawable(
      text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }, assumedWidth: width,
      libcWidth: Self.libc)
  }

  @Test func aGlyphTheCLibraryMeasuresAsTheBufferDidIsDrawnAsIs() {
    #expect(drawable("宽", width: 2) == [[0x5BBD, 0]])
    #expect(drawable("a", width: 1) == [[0x61, 0]])
    #expect(drawable("e\u{301}", width: 1) == [[0x65, 0x301, 0]])
  }

  @Test func aGlyphWiderForTheCLibraryIsAQuestionMark() {
    #expect(drawable("⭐", width: 1) == [[0x3F, 0]])
  }

  @Test(arguments: ["🛠", "🌡", "❤\u{FE0F}", "\u{1FAE8}"])
  func aGlyphNarrowerOrUnknownToTheCLibraryIsAQuestionMarkAndASpace(text: String) {
    #expect(drawable(text, width: 2) == [[0x3F, 0], [0x20, 0]])
  }

  @Test func onlyTheZeroWidthCharactersAfterTheFirstAreKept() {
    // As curses does: it stops at the next spacing character (the second emoji of a ZWJ pair).
    #expect(drawable("宽\u{301}a", width: 2) == [[0x5BBD, 0x301, 0]])
  }

  /// With the real `wcwidth`: whatever the C library says, every column the buffer gave the
  /// glyph is written, and a glyph is drawn as is only when curses will give it those columns.
  @Test(arguments: ["⭐", "🛠", "🌡", "❤\u{FE0F}", "\u{1FAE8}", "宽", "a", "─"])
  func withTheRealWcwidthEveryAssumedColumnIsCovered(text: String) throws {
    let grapheme = try #require(text.first)
    let assumed = DisplayWidth.of(grapheme)
    let cells = CellGlyph.cells(for: text, unicode: true, assumedWidth: assumed, maxCharacters: 5)
    let first = cells[0]
    let libcWidth = Int(cncurses_wcwidth(first[0]))
    let covered = libcWidth > 0 ? libcWidth : 0
    #expect(covered + cells.count - 1 == assumed, "\(cells)")
    let asIs = Int(cncurses_wcwidth(wchar_t(bitPattern: text.unicodeScalars.first!.value)))
    #expect((first[0] != CellGlyph.replacement) == (asIs == assumed), "\(cells)")
  }
}
