import CNCurses
import TerminalCore
import Testing

@testable import CursesTerminal

@Suite struct KeyDecoderTests {
  private func decode(_ input: KeyDecoder.Input) -> Key? {
    KeyDecoder.decode(input, width: 80, height: 24)
  }

  @Test(arguments: [
    (KEY_UP, Key.up), (KEY_DOWN, .down), (KEY_LEFT, .left), (KEY_RIGHT, .right),
    (KEY_PPAGE, .pageUp), (KEY_NPAGE, .pageDown), (KEY_HOME, .home), (KEY_END, .end),
    (KEY_ENTER, .enter), (KEY_BACKSPACE, .backspace),
  ])
  func functionKeys(code: Int32, key: Key) {
    #expect(decode(.keyCode(code)) == key)
  }

  @Test func resizeCarriesTheNewSize() {
    #expect(
      KeyDecoder.decode(.keyCode(KEY_RESIZE), width: 60, height: 20)
        == .resize(width: 60, height: 20))
  }

  @Test(arguments: [
    (UInt32(10), Key.enter), (13, .enter), (27, .escape), (127, .backspace), (8, .backspace),
    (9, .tab), (3, .interrupt),
  ])
  func controlCharacters(value: UInt32, key: Key) {
    #expect(decode(.character(value)) == key)
  }

  @Test func printableCharactersIncludingWideOnes() {
    #expect(decode(.character(0x6A)) == .character("j"))
    #expect(decode(.character(0x5BBD)) == .character("宽"))
  }

  @Test func unusedControlsAndKeysAreDropped() {
    #expect(decode(.character(1)) == nil)  // Ctrl-A
    #expect(decode(.character(0x9B)) == nil)  // C1 CSI
    #expect(decode(.character(0xD800)) == nil)  // not a scalar
    #expect(decode(.keyCode(KEY_F0 + 1)) == nil)
  }
}
