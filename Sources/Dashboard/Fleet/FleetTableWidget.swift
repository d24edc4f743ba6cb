import FleetModel
import TerminalCore

/// The fleet table: column titles, then one row per instance and asset, the selection in reverse
/// video and rejected, stuck or down rows marked `!` in the gutter. Drawn by the dashboard's
/// ``ColumnTableWidget``.
struct FleetTableWidget: Widget {
  let context: RenderContext<FleetState>

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    let sort = context.state.sort
    let rows = context.rows
    ColumnTableWidget(
      columns: FleetColumn.allCases,
      longestID: rows.map { DisplayWidth.of($0.instance) }.max() ?? 8,
      rowCount: rows.count, selectedIndex: context.selectedIndex,
      scrollOffset: context.state.scrollOffset, emptyMessage: emptyMessage,
      glyphs: context.glyphs, theme: context.theme,
      sortMarker: { column in
        guard sort.column != .instance || sort.reversed, column.sortColumn == sort.column else {
          return nil
        }
        return sort.reversed ? context.glyphs.descending : context.glyphs.ascending
      },
      look: { index in
        let mark = rows[index].mark
        let flagged = mark == .stuck || mark == .down || mark == .rejected
        return .init(gutter: flagged ? ("!", context.style(mark)) : nil)
      },
      cell: { column, index, _ in cell(column, rows[index]) }
    )
    .render(in: area, into: &buffer)
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

  /// The text and style of one cell.
  private func cell(_ column: FleetColumn, _ row: FleetRow) -> (text: String, style: CellStyle?) {
    switch column {
    case .instance: return (row.instance, nil)
    case .asset: return (row.asset.isEmpty ? "-" : row.asset, nil)
    case .rollout: return (context.word(row.mark), context.style(row.mark))
    case .version: return (row.version ?? "-", nil)
    case .target:
      let behind = row.fleetTarget != nil && row.version != row.fleetTarget
      return (row.fleetTarget ?? "-", behind ? context.theme.behind : nil)
    case .state:
      return ((row.state ?? "-").uppercased(), context.style(state: row.state))
    case .lastSuccess:
      return (Formatting.ago(row.lastSuccess, now: context.now), nil)
    case .error:
      guard let kind = row.errorKind else { return ("", nil) }
      let failures = row.consecutiveFailures.map { $0 > 1 ? " x\($0)" : "" } ?? ""
      return (kind + failures, context.theme.error)
    }
  }
}
