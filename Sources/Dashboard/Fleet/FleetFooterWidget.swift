import TerminalCore

/// The fleet view's bottom lines: the filter line while it is shown (as in the dashboard), then
/// the last query error or the key hints.
struct FleetFooterWidget {
  let context: RenderContext<FleetState>

  /// The keys of the fleet view, for the footer and the help.
  static func hints(_ glyphs: Glyphs) -> [KeyHints.Hint] {
    [
      .init(
        key: glyphs.upDown, short: "move",
        long: "move the selection (also j k, PgUp PgDn, g G, Home End)", priority: 2),
      .init(key: "enter", short: "details", long: "show or hide the detail pane", priority: 3),
      .init(
        key: "/", short: "filter",
        long: "filter by instance, asset, state or rollout (enter keeps, esc clears)", priority: 1),
      .init(key: "s", short: "sort", long: "cycle the sort column (S reverses)", priority: 4),
      .init(
        key: glyphs.ellipsis == "…" ? "\u{2190}\u{2192}" : "left/right", short: "asset",
        long: "show the previous or next asset's rows",
        priority: 5),
      .init(key: "[ ]", short: "page", long: "show the previous or next page of rows", priority: 5),
      .init(key: "r", short: "query", long: "query Prometheus now", priority: 3),
      .init(key: "?", short: "help", long: "show this help", priority: 0),
      .init(key: "q", short: "quit", long: "quit (also Ctrl-C)", priority: 0),
    ]
  }

  /// Draws the filter line into `filterArea` (when not empty) and the footer into `area`.
  func render(filterArea: Rect, footer area: Rect, into buffer: inout ScreenBuffer) {
    if !filterArea.isEmpty { renderFilter(in: filterArea, into: &buffer) }
    guard !area.isEmpty else { return }
    if let error = context.state.lastError {
      buffer.write(
        context.cut(error, area.width - 1), x: area.x + 1, y: area.y, style: context.theme.error)
      return
    }
    var line = SegmentLine()
    let hints: [KeyHints.Hint] =
      context.state.filter.isEditing
      ? [
        .init(key: "enter", short: "keep filter", long: "", priority: 0),
        .init(key: "esc", short: "clear filter", long: "", priority: 0),
      ]
      : Self.hints(context.glyphs)
    for (index, hint) in hints.enumerated() {
      line.add(hint.key, context.theme.key, priority: hint.priority, spacing: 2, group: index)
      line.add(hint.short, priority: hint.priority, spacing: 1, group: index)
    }
    line.draw(into: &buffer, x: area.x + 1, y: area.y, width: area.width - 1)
  }

  /// `/ stuck▏   1 of 9`.
  private func renderFilter(in area: Rect, into buffer: inout ScreenBuffer) {
    FilterLineWidget.draw(
      context.state.filter, shown: context.rows.count, of: context.state.snapshot?.rows.count ?? 0,
      glyphs: context.glyphs, theme: context.theme, in: area, into: &buffer)
  }
}
