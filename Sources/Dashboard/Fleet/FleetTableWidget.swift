import FleetModel
import TerminalCore

/// The fleet table: column titles, then one row per instance and asset, the selection in reverse
/// video and stuck or down rows marked `!` in the gutter.
struct FleetTableWidget: Widget {
  let context: FleetRenderContext

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    guard !area.isEmpty else { return }
    let longest = context.rows.map { DisplayWidth.of($0.instance) }.max() ?? 8
    let layout = FittedColumns(FleetColumn.allCases, width: area.width, longestID: longest)
    renderTitles(layout, area, &buffer)
    let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
    guard !context.rows.isEmpty else {
      buffer.write(
        emptyMessage, x: body.x + 1, y: body.y, maxWidth: body.width - 1,
        style: context.theme.muted)
      return
    }
    let offset = ScrollPosition.offset(
      current: context.state.scrollOffset, selected: context.selectedIndex,
      rowCount: context.rows.count, viewport: body.height)
    for (line, index) in (offset..<min(context.rows.count, offset + body.height)).enumerated() {
      renderRow(index, layout, y: body.y + line, width: area.width, &buffer)
    }
  }

  private var emptyMessage: String {
    guard let snapshot = context.state.snapshot else {
      return context.state.lastError == nil
        ? "waiting for Prometheus' first answer" : "no answer from Prometheus yet"
    }
    if snapshot.rows.isEmpty {
      return "no instance exposes remote_assets_* metrics (check --selector and the scrape config)"
    }
    return "no row matches the filter"
  }

  private func renderTitles(
    _ layout: FittedColumns<FleetColumn>, _ area: Rect, _ buffer: inout ScreenBuffer
  ) {
    let sort = context.state.sort
    for (entry, x) in zip(layout.columns, layout.origins) {
      var title = entry.column.title
      if sort.column != .instance || sort.reversed, entry.column.sortColumn == sort.column {
        title += sort.reversed ? context.glyphs.descending : context.glyphs.ascending
      }
      buffer.write(
        context.cut(title, entry.width), x: area.x + x, y: area.y, maxWidth: entry.width,
        style: context.theme.title)
    }
  }

  private func renderRow(
    _ index: Int, _ layout: FittedColumns<FleetColumn>, y: Int, width: Int,
    _ buffer: inout ScreenBuffer
  ) {
    let row = context.rows[index]
    if row.mark == .stuck || row.mark == .down {
      buffer.write("!", x: 0, y: y, style: context.style(row.mark))
    }
    for (entry, x) in zip(layout.columns, layout.origins) {
      let (text, style) = cell(entry.column, row)
      buffer.write(
        context.cut(text, entry.width), x: x, y: y, maxWidth: entry.width, style: style)
    }
    if index == context.selectedIndex {
      buffer.restyle(Rect(x: 0, y: y, width: width, height: 1)) { $0.reverse = true }
    }
  }

  /// The text and style of one cell.
  private func cell(_ column: FleetColumn, _ row: FleetRow) -> (String, CellStyle) {
    switch column {
    case .instance: return (row.instance, .plain)
    case .asset: return (row.asset.isEmpty ? "-" : row.asset, .plain)
    case .rollout: return (context.word(row.mark), context.style(row.mark))
    case .version: return (row.version ?? "-", .plain)
    case .target:
      let behind = row.fleetTarget != nil && row.version != row.fleetTarget
      return (row.fleetTarget ?? "-", behind ? context.theme.behind : .plain)
    case .state:
      return ((row.state ?? "-").uppercased(), context.style(state: row.state))
    case .lastSuccess:
      return (Formatting.ago(row.lastSuccess, now: context.now), .plain)
    case .error:
      guard let kind = row.errorKind else { return ("", .plain) }
      let failures = row.consecutiveFailures.map { $0 > 1 ? " x\($0)" : "" } ?? ""
      return (kind + failures, context.theme.error)
    }
  }
}
