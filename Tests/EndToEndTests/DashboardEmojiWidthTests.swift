import DemoOrigin
import Foundation
import Testing

/// Emoji whose width the C library (so curses and tmux) sees differently from the dashboard's
/// table must not shift a row or leave characters of an earlier frame behind.
@Suite(.enabled(if: TmuxCommandRunner.isEnabled, "needs tmux (apt-get install -y tmux)"))
struct DashboardEmojiWidthTests {
  /// The ETags served, in turn: a long plain one, then one with ⭐ for `flags` (the table: 1
  /// column, glibc: 2) and one with 🛠 for `catalog` (the table: 2, glibc: 1).
  static let plain = "\"abcdefgh\""
  static let emoji = ["flags": "\"a\u{2B50}b\"", "catalog": "\"c\u{1F6E0}d\""]

  static func serve(_ etags: [String: String], _ fixture: DashboardFixture) async {
    for (id, etag) in etags {
      await fixture.origin.setHandler("/\(id).json") { _ in
        var response = OriginResponse.data(Data("{}".utf8), contentType: "application/json")
        response.headers.append(OriginHeader("ETag", etag))
        return response
      }
    }
  }

  @Test func emojiETagsLeaveNoStaleCharactersAndKeepTheColumnsAligned() async throws {
    let ids = ["flags", "catalog"]
    try await DashboardFixture.withDashboard(
      width: 160, height: 30,
      prepare: {
        await Self.serve(Dictionary(uniqueKeysWithValues: ids.map { ($0, Self.plain) }), $0)
      }
    ) { fixture, tmux in
      try await tmux.waitFor("the plain ETags") { screen in
        ids.allSatisfy { screen.row($0)?.contains(Self.plain) == true }
      }
      // The emoji ETags replace the longer ones in place: each row is drawn over the old one.
      await Self.serve(Self.emoji, fixture)
      try await tmux.press("R")
      let screen = try await tmux.waitFor("the emoji ETags") { screen in
        ids.allSatisfy { screen.row($0).map { !$0.contains(Self.plain) } ?? false }
      }
      let titles = try #require(screen.line(containing: "ETAG")?.text)
      let etag = try #require(LibcColumns.start(of: "ETAG", in: titles))
      let checked = try #require(LibcColumns.start(of: "CHECKED", in: titles))
      for id in ids {
        let cells = LibcColumns.cells(try #require(screen.row(id)))
        var shown = cells[etag..<min(checked, cells.count)].joined()
        while shown.hasSuffix(" ") { shown.removeLast() }
        // Drawn as is where the C library agrees with the table, else as ? over the columns
        // the table gave it; never with a character of the plain ETag left behind.
        let wanted = Self.emoji[id]!
        let replaced = id == "flags" ? "\"a?b\"" : "\"c? d\""
        #expect(shown == wanted || shown == replaced, "\(id): \(shown)")
      }
      for id in DashboardFixture.ids {
        // Every row's CHECKED value starts under its title: nothing before it moved.
        let cells = LibcColumns.cells(try #require(screen.row(id)))
        #expect(
          checked < cells.count && cells[checked - 1] == " " && cells[checked] != " ",
          "\(id): \(cells.joined())\n\(titles)")
      }
    }
  }
}

/// Columns as tmux counts them: by the C library's `wcwidth` in a UTF-8 locale (tmux is built
/// without utf8proc here), asked through a locale of this thread only.
private enum LibcColumns {
  private typealias WCWidth = @convention(c) (Int32) -> Int32

  private static func wcwidth(_ scalar: Unicode.Scalar) -> Int {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "wcwidth"),
      let utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)
    else { return 1 }
    defer { freelocale(utf8) }
    let previous = uselocale(utf8)
    defer { uselocale(previous) }
    return Int(unsafeBitCast(symbol, to: WCWidth.self)(Int32(bitPattern: scalar.value)))
  }

  /// One entry per terminal column: a character where it starts, "" for the rest of a wide one.
  static func cells(_ line: String) -> [String] {
    var out: [String] = []
    for scalar in line.unicodeScalars {
      let width = wcwidth(scalar)
      if width <= 0 { continue }
      out.append(String(scalar))
      out += Array(repeating: "", count: width - 1)
    }
    return out
  }

  /// The column `word` starts at in `line`.
  static func start(of word: String, in line: String) -> Int? {
    guard let range = line.range(of: word) else { return nil }
    return cells(String(line[..<range.lowerBound])).count
  }
}
