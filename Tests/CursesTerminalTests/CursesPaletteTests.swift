import CNCurses
import TerminalCore
import Testing

@testable import CursesTerminal

@Suite struct CursesPaletteTests {
  /// Records init_pair calls.
  final class Pairs {
    var defined: [(Int16, Int16, Int16)] = []
  }

  private func palette(colors: Bool, defaults: Bool = true, limit: Int = 64, pairs: Pairs)
    -> CursesPalette
  {
    CursesPalette(colors: colors, defaultColors: defaults, pairLimit: limit) {
      pairs.defined.append(($0, $1, $2))
    }
  }

  @Test func plainStyleUsesTheDefaultPair() {
    let pairs = Pairs()
    let look = palette(colors: true, pairs: pairs).look(for: .plain)
    #expect(look == .init(attributes: cncurses_a_normal(), pair: 0))
    #expect(pairs.defined.isEmpty)
  }

  @Test func eachColourCombinationGetsOnePair() {
    let pairs = Pairs()
    let palette = palette(colors: true, pairs: pairs)
    let red = palette.look(for: CellStyle(foreground: .red))
    let again = palette.look(for: CellStyle(foreground: .red, bold: true))
    let green = palette.look(for: CellStyle(foreground: .green, background: .blue))
    #expect(red.pair == 1 && again.pair == 1 && green.pair == 2)
    #expect(again.attributes == cncurses_a_bold())
    #expect(pairs.defined.map(\.0) == [1, 2])
    #expect(pairs.defined[0].1 == Int16(COLOR_RED) && pairs.defined[0].2 == -1)
    #expect(pairs.defined[1].1 == Int16(COLOR_GREEN) && pairs.defined[1].2 == Int16(COLOR_BLUE))
  }

  @Test func withoutDefaultColoursWhiteOnBlackStandsIn() {
    let pairs = Pairs()
    _ = palette(colors: true, defaults: false, pairs: pairs).look(for: CellStyle(background: .red))
    #expect(pairs.defined[0].1 == Int16(COLOR_WHITE) && pairs.defined[0].2 == Int16(COLOR_RED))
  }

  @Test func runningOutOfPairsFallsBackToDefaultColours() {
    let pairs = Pairs()
    let palette = palette(colors: true, limit: 2, pairs: pairs)
    #expect(palette.look(for: CellStyle(foreground: .red)).pair == 1)
    #expect(palette.look(for: CellStyle(foreground: .green)).pair == 0)
    #expect(pairs.defined.count == 1)
  }

  @Test func monochromeDropsColoursAndShowsBackgroundsReversed() {
    let pairs = Pairs()
    let palette = palette(colors: false, pairs: pairs)
    let bar = palette.look(for: CellStyle(foreground: .black, background: .cyan))
    let text = palette.look(for: CellStyle(foreground: .red, underline: true))
    #expect(bar == .init(attributes: cncurses_a_reverse(), pair: 0))
    #expect(text == .init(attributes: cncurses_a_underline(), pair: 0))
    #expect(pairs.defined.isEmpty)
  }
}
