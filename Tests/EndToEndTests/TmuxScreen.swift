import Foundation

/// A pane captured with `capture-pane -p -e`, parsed into lines of characters with the SGR
/// attributes tmux reports for them (reverse video, colours).
struct TmuxScreen: Sendable {
  /// What tmux says about one character's looks.
  struct Style: Sendable, Equatable {
    var reverse = false
    var foregroundColor = false
    var backgroundColor = false
  }

  /// One character of the pane and its style.
  struct Cell: Sendable {
    var scalar: Unicode.Scalar
    var style: Style
  }

  /// The raw capture, escapes included.
  let raw: String
  /// Each line's characters with styles (trailing blanks trimmed by tmux).
  let styledLines: [[Cell]]
  /// Whether any SGR sequence set a foreground or background colour (30-37, 40-47, 90-97,
  /// 100-107, 38;5/48;5, 38;2/48;2).
  let usesColor: Bool

  init(capture: String) {
    raw = capture
    var parser = SGRParser()
    var lines = capture.split(separator: "\n", omittingEmptySubsequences: false).map {
      parser.cells(of: String($0))
    }
    // capture-pane ends with a newline: the split leaves an empty last element.
    if lines.last?.isEmpty == true, capture.hasSuffix("\n") { lines.removeLast() }
    styledLines = lines
    usesColor = parser.sawColor
  }

  /// How many cells differ (in character or style) between two captures of one pane.
  static func changedCells(from old: TmuxScreen, to new: TmuxScreen) -> Int {
    var count = 0
    for row in 0..<max(old.styledLines.count, new.styledLines.count) {
      let a = row < old.styledLines.count ? old.styledLines[row] : []
      let b = row < new.styledLines.count ? new.styledLines[row] : []
      for column in 0..<max(a.count, b.count) {
        let x = column < a.count ? a[column] : nil
        let y = column < b.count ? b[column] : nil
        if x?.scalar != y?.scalar || x?.style != y?.style { count += 1 }
      }
    }
    return count
  }

  /// The lines as plain text.
  var lines: [String] {
    styledLines.map { cells in
      var view = String.UnicodeScalarView()
      view.append(contentsOf: cells.map(\.scalar))
      return String(view)
    }
  }

  /// The whole pane as plain text, one line per row.
  var text: String { lines.joined(separator: "\n") }

  /// The first line whose text contains `text`, with its index.
  func line(containing text: String) -> (index: Int, text: String)? {
    lines.enumerated().first { $0.element.contains(text) }.map { ($0.offset, $0.element) }
  }

  /// The table row of asset `id`: the line that starts with the id after the gutter.
  func row(_ id: String) -> String? {
    lines.first { $0.dropFirst().hasPrefix(id + " ") || $0.dropFirst() == id }
  }

  /// Whether every character of the first occurrence of `word` in a line is in reverse video.
  func isReversed(_ word: String, inLineStartingWith prefix: String) -> Bool {
    guard let index = lines.firstIndex(where: { $0.dropFirst().hasPrefix(prefix) }),
      let range = lines[index].range(of: word)
    else { return false }
    let line = lines[index]
    let start = line.unicodeScalars.distance(
      from: line.unicodeScalars.startIndex, to: range.lowerBound)
    let count = word.unicodeScalars.count
    return styledLines[index][start..<start + count].allSatisfy(\.style.reverse)
  }

  /// The ids (from `ids`) whose table row shows in reverse video.
  func reversedRows(among ids: [String]) -> [String] {
    ids.filter { isReversed($0, inLineStartingWith: $0 + " ") }
  }

  /// The display width of the widest line (East Asian wide and emoji count two columns).
  var widestLine: Int {
    lines.map(DisplayColumns.of).max() ?? 0
  }
}

/// Terminal columns a string takes, close enough for checking a dashboard's lines.
enum DisplayColumns {
  static func of(_ text: String) -> Int {
    text.unicodeScalars.reduce(0) { $0 + width($1) }
  }

  static func width(_ scalar: Unicode.Scalar) -> Int {
    let v = scalar.value
    if v == 0 || (0x300...0x36F).contains(v) || (0x200B...0x200F).contains(v) || v == 0xFE0F {
      return 0
    }
    let wide: [ClosedRange<UInt32>] = [
      0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
      0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1FAFF, 0x20000...0x3FFFD,
    ]
    return wide.contains { $0.contains(v) } ? 2 : 1
  }
}

/// Follows the SGR state across a capture's lines (tmux emits only the changes).
private struct SGRParser {
  var style = TmuxScreen.Style()
  var sawColor = false

  /// The characters of one captured line with the style in force for each.
  mutating func cells(of line: String) -> [TmuxScreen.Cell] {
    var cells: [TmuxScreen.Cell] = []
    var scalars = line.unicodeScalars.makeIterator()
    while let scalar = scalars.next() {
      guard scalar == "\u{1B}" else {
        cells.append(TmuxScreen.Cell(scalar: scalar, style: style))
        continue
      }
      guard scalars.next() == "[" else { continue }
      var parameters = ""
      while let next = scalars.next() {
        if (0x40...0x7E).contains(next.value) {
          if next == "m" { apply(parameters) }
          break
        }
        parameters.unicodeScalars.append(next)
      }
    }
    return cells
  }

  private mutating func apply(_ parameters: String) {
    let list = parameters.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
    var index = 0
    while index < list.count {
      let parameter = list[index]
      index += 1
      if parameter.hasPrefix("38:") || parameter.hasPrefix("48:") {
        setColor(background: parameter.hasPrefix("48"))
        continue
      }
      switch Int(parameter) ?? 0 {
      case 0: style = TmuxScreen.Style()
      case 7: style.reverse = true
      case 27: style.reverse = false
      case 30...37, 90...97: setColor(background: false)
      case 39: style.foregroundColor = false
      case 40...47, 100...107: setColor(background: true)
      case 49: style.backgroundColor = false
      case 38, 48:
        setColor(background: parameter == "48")
        // 38;5;N or 38;2;R;G;B: skip the operands so they are not read as attributes.
        index += list.indices.contains(index) && list[index] == "2" ? 4 : 2
      default: break
      }
    }
  }

  private mutating func setColor(background: Bool) {
    sawColor = true
    if background { style.backgroundColor = true } else { style.foregroundColor = true }
  }
}
