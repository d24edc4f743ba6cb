import AssetModel
import TerminalCore

/// What every mark and colour on the dashboard means, for the help overlay: each mark drawn in
/// the style the table and the header give it, then a few words. The same list as the README's
/// "Dashboard keys" section.
struct Legend {
  /// One line: the marks as drawn, and what they mean.
  struct Entry {
    var marks: [(text: String, style: CellStyle)]
    var text: String

    /// The display width of the marks, one space apart.
    var marksWidth: Int {
      marks.map { DisplayWidth.of($0.text) }.reduce(0, +) + max(0, marks.count - 1)
    }
  }

  /// The overlay's title over the entries.
  static let title = "Marks and colours"

  let entries: [Entry]

  init(theme: Theme, glyphs: Glyphs) {
    let state = theme.state
    entries = [
      Entry(
        marks: [(String(glyphs.changed), theme.strong), ("bold", theme.strong)],
        text: "the row changed in the last 3 s"),
      Entry(marks: [(" row ", CellStyle(reverse: true))], text: "the selection"),
      Entry(marks: [("FRESH", state(.fresh))], text: "checked within its TTL"),
      Entry(marks: [("STALE", state(.stale))], text: "past its TTL, still served (max-stale)"),
      Entry(marks: [("EXPIRED", state(.expired))], text: "past max-stale, still served, flagged"),
      Entry(marks: [("FAILED", state(.failed))], text: "last try failed; last good copy served"),
      Entry(marks: [("MISSING", state(.missing))], text: "no usable copy at all"),
      Entry(marks: [("BUNDLED", state(.bundled))], text: "the copy shipped with the app"),
      Entry(
        marks: [("CHECKING", state(.checking)), (glyphs.moving, state(.downloading))],
        text: "work in flight (also DOWNLOADING, VALIDATING)"),
      Entry(
        marks: [("TARGET", theme.behind), ("behind", theme.behind)],
        text: "not on the manifest's target version yet"),
      Entry(
        marks: [("signed r3", state(.fresh))],
        text: "in force (TUF); yellow: repo is failing; red: refused"),
      Entry(
        marks: [("PAUSED 2m", theme.paused)],
        text: "auto-refresh paused since; NEXT says paused"),
      Entry(marks: [("attached to", .plain)], text: "the engine of another process (its socket)"),
      Entry(
        marks: [("disconnected", state(.failed))],
        text: "that engine is gone: last table kept, reconnecting"),
    ]
  }

  /// The widest marks.
  var marksWidth: Int { entries.map(\.marksWidth).max() ?? 1 }
  /// The widest text.
  var textWidth: Int { entries.map { DisplayWidth.of($0.text) }.max() ?? 1 }

  /// Draws the entries from `y` in the columns `x`..<`x + width`, marks first; at most `rows`.
  func draw(
    into buffer: inout ScreenBuffer, x: Int, y: Int, width: Int, rows: Int, glyphs: Glyphs
  ) {
    let markColumn = marksWidth
    for (line, entry) in entries.prefix(max(0, rows)).enumerated() {
      var markX = x
      for mark in entry.marks where markX < x + width {
        markX +=
          buffer.write(
            mark.text, x: markX, y: y + line, maxWidth: x + width - markX, style: mark.style) + 1
      }
      let textX = x + markColumn + 2
      let room = x + width - textX
      guard room > 0 else { continue }
      buffer.write(
        TextFit.truncate(entry.text, to: room, ellipsis: glyphs.ellipsis), x: textX, y: y + line)
    }
  }
}
