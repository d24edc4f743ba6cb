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

  /// ASCII text takes a path of its own (a byte a cell); it lays out exactly as the walk by
  /// grapheme does, which text with one non-ASCII character at its end still takes.
  @Test(arguments: [
    ("plain text", 0, Int.max), ("ab\u{7}c\r\nd\u{1B}[31me\u{7F}f", 0, Int.max),
    ("clipped at the width", 2, 6), ("starts left of the buffer", -3, Int.max), ("", 1, 4),
    ("  spaces  ", 5, 3), ("past the right edge of the buffer", 10, Int.max),
  ])
  func asciiTextLaysOutAsTheWalkByGraphemeDoes(text: String, x: Int, maxWidth: Int) {
    var fast = ScreenBuffer(width: 24, height: 1)
    var walked = ScreenBuffer(width: 24, height: 1)
    let used = fast.write(text, x: x, y: 0, maxWidth: maxWidth, style: CellStyle(bold: true))
    // The same text plus a zero-width combining mark (U+0301) on its last character: not
    // ASCII, so walked by grapheme; the mark changes the last cell's text only.
    let marked = walked.write(
      text + "\u{301}", x: x, y: 0, maxWidth: maxWidth, style: CellStyle(bold: true))
    #expect(used == marked)
    let last = (0..<24).last { walked[$0, 0].text.unicodeScalars.contains("\u{301}") }
    for column in 0..<24 where column != last {
      #expect(fast[column, 0] == walked[column, 0], "column \(column)")
    }
    if let last {
      #expect(fast[last, 0].text + "\u{301}" == walked[last, 0].text)
    }
  }
}
