import Testing

@testable import AssetWatchCLI

/// How `Console.printLines` gathers many lines into few writes: every line cleaned and ended,
/// nothing lost or reordered, pieces of about the size asked for.
@Suite struct ConsolePiecesTests {
  @Test func aThousandShortLinesAreOnePiece() {
    let lines = (0..<1_000).map { "a\($0)  notModified  63c59ca7" }
    let pieces = Console.pieces(of: lines)
    #expect(pieces.count == 1)
    #expect(pieces.joined() == lines.map { $0 + "\n" }.joined())
  }

  @Test func piecesReachTheSizeWithTheirLastLineAndKeepTheOrder() {
    let lines = (0..<500).map { String(repeating: "x", count: $0 % 97) + "|\($0)" }
    let pieces = Console.pieces(of: lines, size: 1_000)
    #expect(pieces.count > 1)
    #expect(pieces.joined() == lines.map { $0 + "\n" }.joined())
    for piece in pieces.dropLast() {
      #expect(piece.utf8.count >= 1_000)
      // Without its last line it was still short: a piece closes as soon as it is full.
      let lastLine = piece.dropLast().split(separator: "\n").last.map { $0.utf8.count + 1 } ?? 0
      #expect(piece.utf8.count - lastLine < 1_000)
    }
    #expect(pieces.allSatisfy { !$0.isEmpty && $0.hasSuffix("\n") })
  }

  @Test func eachLineIsCleanedAsPrintLineCleansIt() {
    let hostile = ["ok", "v1\u{1B}[31m\u{07}", "two\nlines"]
    let text = Console.pieces(of: hostile).joined()
    #expect(text == hostile.map { OutsideText.line($0) + "\n" }.joined())
    #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    #expect(text.split(separator: "\n").count == 3)
  }

  @Test func noLinesAreNoPieces() {
    #expect(Console.pieces(of: [String]()).isEmpty)
  }
}
