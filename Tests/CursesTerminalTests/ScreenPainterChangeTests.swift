import Testing

@testable import CursesTerminal
@testable import TerminalCore

/// Which cells of a changed row the painter draws again (``ScreenPainter/changed(_:_:_:over:)``):
/// the cells that differ and their neighbours, nothing else.
@Suite struct ScreenPainterChangeTests {
  static func row(_ text: String, width: Int = 12) -> ScreenBuffer {
    var buffer = ScreenBuffer(width: width, height: 1)
    buffer.write(text, x: 0, y: 0)
    return buffer
  }

  static func redrawn(_ new: ScreenBuffer, over old: ScreenBuffer) -> [Int] {
    (0..<new.width).filter { ScreenPainter.changed($0, 0, new, over: old) }
  }

  @Test func aTickingClockRedrawsItsSecondsAndTheirNeighboursOnly() {
    #expect(Self.redrawn(Self.row("12:00:07"), over: Self.row("12:00:06")) == [6, 7, 8])
    #expect(Self.redrawn(Self.row("12:00:10"), over: Self.row("12:00:09")) == [5, 6, 7, 8])
  }

  @Test func anUnchangedRowRedrawsNothing() {
    #expect(Self.redrawn(Self.row("FRESH 1m ago"), over: Self.row("FRESH 1m ago")).isEmpty)
  }

  /// A wide character replacing two narrow ones: the cells it covers and the ones beside them,
  /// whose look depends on whether a neighbour is half of a wide character.
  @Test func aWideCharacterRedrawsBothHalvesAndTheirNeighbours() {
    let narrow = Self.row("ab cd")
    let wide = Self.row("ab\u{4E2D}d")
    #expect(wide[3, 0].isContinuation)
    #expect(Self.redrawn(wide, over: narrow) == [1, 2, 3, 4])
    #expect(Self.redrawn(narrow, over: wide) == [1, 2, 3, 4])
  }

  @Test func theEdgesOfTheRowHaveOneNeighbour() {
    #expect(Self.redrawn(Self.row("xbc"), over: Self.row("abc")) == [0, 1])
    #expect(Self.redrawn(Self.row("abcdefghijkZ"), over: Self.row("abcdefghijkl")) == [10, 11])
  }
}
