import Testing

@testable import TerminalCore

/// The cell grid, and writing text into it by display width.
@Suite struct ScreenBufferTests {
  @Test func blankBufferHasSpaces() {
    let buffer = ScreenBuffer(width: 3, height: 2)
    #expect(buffer.cells.count == 6)
    #expect(buffer[2, 1].text == " ")
  }

  @Test func writingOverHalfAWideCharacterBlanksTheOtherHalf() {
    var buffer = ScreenBuffer(width: 6, height: 1)
    buffer.write("設定", x: 0, y: 0)
    buffer.write("x", x: 1, y: 0)  // over the right half of 設
    #expect(buffer[0, 0].text == " ")
    #expect(buffer[1, 0].text == "x")
    #expect(buffer[2, 0].text == "定")
    buffer.write("y", x: 2, y: 0)  // over the left half of 定
    #expect(buffer[3, 0].text == " ")
  }

  @Test func aWideCharacterThatDoesNotFitLeavesABlank() {
    var buffer = ScreenBuffer(width: 3, height: 1)
    #expect(buffer.write("a設", x: 0, y: 0, maxWidth: 2) == 2)
    #expect(buffer[1, 0].text == " ")
  }

  @Test func fillAndRestyleStayInsideTheBuffer() {
    var buffer = ScreenBuffer(width: 4, height: 2)
    buffer.write("abcd", x: 0, y: 0)
    buffer.fill(Rect(x: 2, y: 0, width: 5, height: 1), style: CellStyle(bold: true))
    #expect(buffer[1, 0].text == "b" && buffer[2, 0].text == " " && buffer[3, 0].style.bold)
    buffer.restyle(Rect(x: -1, y: 1, width: 9, height: 3)) { $0.reverse = true }
    #expect((0..<4).allSatisfy { buffer[$0, 1].style.reverse && !buffer[$0, 0].style.reverse })
  }
}
