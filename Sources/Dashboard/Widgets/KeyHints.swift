/// The keys the footer and the help overlay list, without the destructive ones in read-only runs,
/// and with `n` (the demo's next release) only in `assetwatch demo`.
struct KeyHints {
  /// One key and what it does.
  struct Hint {
    /// The key as shown.
    var key: String
    /// Two or three words for the footer.
    var short: String
    /// A sentence for the help overlay.
    var long: String
    /// Lower stays in the footer longer.
    var priority: Int
  }

  let all: [Hint]

  init(readonly: Bool, glyphs: Glyphs, demo: Bool = false) {
    var hints: [Hint] = []
    if demo {
      hints.append(
        Hint(
          key: "n", short: "next release",
          long: "publish the demo's next release now (else every 30 s)", priority: 0))
    }
    hints += [
      Hint(
        key: glyphs.upDown, short: "move",
        long: "move the selection (also j k, PgUp PgDn, g G, Home End)", priority: 2),
      Hint(key: "enter", short: "details", long: "show or hide the detail pane", priority: 3),
      Hint(key: "r", short: "refresh", long: "refresh the selected asset now", priority: 1),
      Hint(key: "R", short: "all", long: "refresh every asset now", priority: 3),
    ]
    if !readonly {
      hints += [
        Hint(
          key: "b", short: "reset", long: "reset the selected asset to its bundled copy",
          priority: 2),
        Hint(key: "d", short: "drop", long: "drop the selected asset's cached copy", priority: 2),
        Hint(
          key: "u", short: "rollback", long: "roll back to the previous generation", priority: 4),
      ]
    }
    hints += [
      Hint(
        key: "/", short: "filter", long: "filter by id or state (enter keeps, esc clears)",
        priority: 1),
      Hint(key: "s", short: "sort", long: "cycle the sort column (S reverses)", priority: 4),
      Hint(key: "p", short: "pause", long: "pause or resume automatic refreshes", priority: 4),
      Hint(key: "l", short: "events", long: "show or hide the event pane", priority: 5),
      Hint(key: "?", short: "help", long: "show this help", priority: 0),
      Hint(key: "esc", short: "close", long: "close an overlay or the detail pane", priority: 6),
      Hint(key: "q", short: "quit", long: "quit (also Ctrl-C)", priority: 0),
    ]
    all = hints
  }

  /// The hints for `options`.
  init(options: DashboardOptions, glyphs: Glyphs) {
    self.init(readonly: options.readonly, glyphs: glyphs, demo: options.demo)
  }
}
