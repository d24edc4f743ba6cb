import Foundation
import RemoteAssets
import Testing

@testable import AssetWatchCLI

/// The plain tables of `status` and `fleet --once`: columns line up in terminal columns whatever
/// the script, no cell is cut, and the rows carry no whitespace at their ends.
@Suite struct TextTableTests {
  /// Where each cell after the first starts, in terminal columns (two spaces before it).
  private func columnStarts(_ line: String, cells: [String]) -> [Int] {
    var starts: [Int] = []
    var column = 0
    var rest = Substring(line)
    for cell in cells {
      guard let range = rest.range(of: cell) else { return [] }
      column += rest[..<range.lowerBound].reduce(0) { $0 + widthOf($1) }
      starts.append(column)
      column += cell.reduce(0) { $0 + widthOf($1) }
      rest = rest[range.upperBound...]
    }
    return starts
  }

  private func widthOf(_ character: Character) -> Int {
    character.unicodeScalars.contains { $0.value >= 0x1100 } ? 2 : 1
  }

  @Test func wideAndEmojiCellsLineUpAndAreNotCut() {
    let rows = [
      ["ID", "STATE", "VERSION"],
      ["flags", "fresh", "1"],
      ["表示設定", "stale", "2"],
      ["🙂🙂🙂🙂🙂", "failed", "3"],
    ]
    let lines = TextTable.lines(rows)
    #expect(lines.count == 4)
    for (line, row) in zip(lines, rows) {
      // Nothing cut: Foundation's padding counted UTF-16 units and cut the emoji row's first
      // cell after two and a half emoji.
      for cell in row { #expect(line.contains(cell), "\(line)") }
      #expect(columnStarts(line, cells: row).dropFirst() == [12, 20], "\(line)")
    }
  }

  @Test func rowsEndWithoutPaddingAndLastCellsAreKept() {
    let lines = TextTable.lines([["A", "B", "LAST"], ["long value", "x", ""], ["y", "", " z "]])
    // Column 0 is ten wide, column 1 one: the last cell starts at column 15 with its own space.
    let last = "y" + String(repeating: " ", count: 15) + "z"
    #expect(lines == ["A           B  LAST", "long value  x", last])
  }

  @Test func trimmingRemovesSpacesAndTabsAtEitherEndOnly() {
    #expect(TextTable.trimmed(" \t a  b \t ") == "a  b")
    #expect(TextTable.trimmed("\u{00A0}a\u{3000}") == "a")
    #expect(TextTable.trimmed("") == "")
    #expect(TextTable.trimmed("   ") == "")
    #expect(TextTable.trimmed("a\n") == "a\n")
    // The same answer as Foundation's, over random mixes of spaces, tabs and other characters.
    let alphabet: [Character] = [" ", "\t", "a", "é", "🙂", "\u{00A0}", "\n", "表"]
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      let text = String(
        (0..<Int.random(in: 0...8, using: &generator)).map { _ in
          alphabet.randomElement(using: &generator)!
        })
      #expect(TextTable.trimmed(text) == text.trimmingCharacters(in: .whitespaces), "\(text)")
    }
  }

  @Test func plainEventLinesLineUpAfterAWideID() {
    var printer = PlainEventPrinter(timeZone: TimeZone(identifier: "UTC")!)
    let now = Date(timeIntervalSince1970: 1_795_293_667)
    let half = TransferProgress(receivedBytes: 50, expectedBytes: 100, bytesPerSecond: 0)
    let ascii = printer.lines(for: .progress(id: "model", half), now: now).first ?? ""
    let wide = printer.lines(for: .progress(id: "模型", half), now: now).first ?? ""
    func column(_ line: String) -> Int? {
      line.range(of: "50%").map { line[..<$0.lowerBound].reduce(0) { $0 + widthOf($1) } }
    }
    #expect(column(ascii) != nil && column(ascii) == column(wide), "\(ascii)\n\(wide)")
  }

  @Test func paddingNeverCuts() {
    #expect(TextTable.padded("abc", to: 5) == "abc  ")
    #expect(TextTable.padded("abcdef", to: 3) == "abcdef")
    #expect(TextTable.padded("表", to: 3) == "表 ")
  }
}
