import Testing

@testable import TerminalCore

/// Areas for widgets: centring, insetting, emptiness.
@Suite struct RectTests {
  @Test func centeredIsClampedToTheOuterRectangle() {
    let outer = Rect(x: 2, y: 1, width: 20, height: 10)
    #expect(outer.centered(width: 10, height: 4) == Rect(x: 7, y: 4, width: 10, height: 4))
    #expect(outer.centered(width: 30, height: 30) == outer)
  }

  @Test func insetShrinksEverySideAndNeverGoesNegative() {
    #expect(
      Rect(x: 0, y: 0, width: 10, height: 5).inset(1) == Rect(x: 1, y: 1, width: 8, height: 3))
    #expect(Rect(x: 0, y: 0, width: 1, height: 1).inset(1).isEmpty)
    #expect(Rect.empty.isEmpty && Rect(x: 0, y: 3, width: 2, height: 4).maxY == 7)
  }
}
