import AssetModel
import TerminalCore

extension TableColumn: TitledColumn {}

/// The asset table: column titles, then one row per asset, the selection in reverse video.
struct TableWidget: Widget {
  let context: RenderContext<DashboardState>

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    let cells = TableCellText(context: context)
    let sort = context.state.sort
    let changed = { (index: Int) in
      context.state.isRecentlyChanged(context.rows[index].id, at: context.now)
    }
    ColumnTableWidget(
      columns: TableColumn.allCases,
      longestID: context.rows.isEmpty ? 2 : context.rows.longestIDWidth,
      rowCount: context.rows.count, selectedIndex: context.selectedIndex,
      scrollOffset: context.state.scrollOffset, emptyMessage: emptyMessage,
      glyphs: context.glyphs, theme: context.theme,
      sortMarker: { column in
        guard column == Self.markedColumn(sort) else { return nil }
        return sort.reversed ? context.glyphs.descending : context.glyphs.ascending
      },
      look: { index in
        let isChanged = changed(index)
        return .init(
          gutter: isChanged ? (String(context.glyphs.changed), context.theme.strong) : nil,
          bold: isChanged)
      },
      cell: { column, index, width in cells.cell(column, context.rows[index], width: width) }
    )
    .render(in: area, into: &buffer)
  }

  /// The column whose title carries the sort marker: the one sorted by; in the engine's order,
  /// which has no column of its own, none, or the ID column once `S` reversed it (as the fleet
  /// view marks its default order).
  static func markedColumn(_ sort: TableSort) -> TableColumn? {
    if sort.column == .config { return sort.reversed ? .id : nil }
    return TableColumn.allCases.first { $0.sortColumn == sort.column }
  }

  private var emptyMessage: String {
    if context.state.info == nil { return "waiting for the engine's first snapshot" }
    if let loading = context.state.info?.assetsLoading {
      return HeaderWidget.loadingNote(loading, context.glyphs)
    }
    if context.state.assets.isEmpty { return "no assets configured" }
    return "no asset matches the filter"
  }
}
