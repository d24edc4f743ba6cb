import Testing

@testable import Dashboard

@Test func blankBufferHasSpaces() {
  let buffer = ScreenBuffer(width: 3, height: 2)
  #expect(buffer.cells.count == 6)
  #expect(buffer[2, 1].text == " ")
}
