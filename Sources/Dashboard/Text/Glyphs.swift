/// The few non-ASCII characters the dashboard draws, with ASCII stand-ins for non-UTF-8 terminals.
struct Glyphs: Sendable {
  /// Ends text that was cut.
  let ellipsis: Character
  /// A horizontal rule.
  let horizontal: Character
  /// A vertical rule.
  let vertical: Character
  /// Box corners: top-left, top-right, bottom-left, bottom-right.
  let corners: (Character, Character, Character, Character)
  /// A filled and an empty progress bar cell.
  let barFull: Character
  let barEmpty: Character
  /// Marks transfers in flight in the header counts.
  let moving: String
  /// Sort direction markers.
  let ascending: String
  let descending: String
  /// Marks a row that changed a moment ago.
  let changed: Character
  /// The up/down arrows in key hints.
  let upDown: String
  /// The cursor at the end of the filter being typed.
  let cursor: Character

  /// Glyphs for a UTF-8 terminal.
  static let unicode = Glyphs(
    ellipsis: "…", horizontal: "─", vertical: "│", corners: ("┌", "┐", "└", "┘"),
    barFull: "█", barEmpty: "░", moving: "↓", ascending: "▲", descending: "▼", changed: "•",
    upDown: "↑↓", cursor: "▏")

  /// Glyphs for any terminal.
  static let ascii = Glyphs(
    ellipsis: "~", horizontal: "-", vertical: "|", corners: ("+", "+", "+", "+"),
    barFull: "#", barEmpty: "-", moving: "dl", ascending: "^", descending: "v", changed: "*",
    upDown: "up/dn", cursor: "_")

  /// The set for the given options.
  static func forOptions(_ options: DashboardOptions) -> Glyphs {
    options.unicode ? .unicode : .ascii
  }
}
