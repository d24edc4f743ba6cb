import CNCurses
import TerminalCore

/// Maps a `CellStyle` to curses attributes and a colour pair, defining pairs as styles need them.
///
/// Pairs are allocated lazily in order of first use because an 8-colour terminal offers only 64
/// pairs, fewer than the 81 foreground/background combinations (8 colours plus "default" each).
final class CursesPalette {
  /// Attributes and colour pair for one style.
  struct Look: Equatable {
    /// Curses attribute bits (A_BOLD, ...), without the colour pair.
    var attributes: attr_t
    /// The colour pair; 0 is the terminal's default colours.
    var pair: Int16
  }

  private struct ColorKey: Hashable {
    var foreground: TerminalColor?
    var background: TerminalColor?
  }

  private let colors: Bool
  private let defaultColors: Bool
  private let pairLimit: Int
  private let definePair: (Int16, Int16, Int16) -> Void
  private var pairs: [ColorKey: Int16] = [:]
  private var looks: [CellStyle: Look] = [:]

  /// Creates a palette; `colors` false gives monochrome looks. `defaultColors` says whether
  /// `use_default_colors` succeeded (-1 may name the terminal's own colours); `pairLimit` is
  /// COLOR_PAIRS; `definePair` is `init_pair` (injected so tests can watch it).
  init(
    colors: Bool, defaultColors: Bool, pairLimit: Int,
    definePair: @escaping (Int16, Int16, Int16) -> Void
  ) {
    self.colors = colors
    self.defaultColors = defaultColors
    self.pairLimit = pairLimit
    self.definePair = definePair
  }

  /// The attributes and pair for `style`.
  func look(for style: CellStyle) -> Look {
    if let known = looks[style] { return known }
    let look = makeLook(for: style)
    looks[style] = look
    return look
  }

  private func makeLook(for style: CellStyle) -> Look {
    var attributes = cncurses_a_normal()
    if style.bold { attributes |= cncurses_a_bold() }
    if style.dim { attributes |= cncurses_a_dim() }
    if style.underline { attributes |= cncurses_a_underline() }
    // Without colours a background (a selection bar, a highlight) is only visible as reverse.
    let reverse = style.reverse || (!colors && style.background != nil)
    if reverse { attributes |= cncurses_a_reverse() }
    guard colors else { return Look(attributes: attributes, pair: 0) }
    let key = ColorKey(foreground: style.foreground, background: style.background)
    return Look(attributes: attributes, pair: pair(for: key))
  }

  private func pair(for key: ColorKey) -> Int16 {
    if key.foreground == nil && key.background == nil { return 0 }
    if let known = pairs[key] { return known }
    let number = pairs.count + 1
    // Out of pairs: default colours keep the text readable.
    guard number < pairLimit else { return 0 }
    let pair = Int16(number)
    definePair(
      pair, curses(key.foreground, fallback: COLOR_WHITE),
      curses(key.background, fallback: COLOR_BLACK))
    pairs[key] = pair
    return pair
  }

  /// The curses colour number; "default" is -1 when the terminal supports it.
  private func curses(_ color: TerminalColor?, fallback: Int32) -> Int16 {
    if let color { return Int16(color.rawValue) }
    return defaultColors ? -1 : Int16(fallback)
  }
}
