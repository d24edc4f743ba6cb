import AssetModel
import TerminalCore

/// The asset table: column titles, then one row per asset, the selection in reverse video.
struct TableWidget: Widget {
  let context: RenderContext

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    guard !area.isEmpty else { return }
    let longestID = context.rows.isEmpty ? 2 : context.rows.longestIDWidth
    let layout = ColumnLayout(width: area.width, longestID: longestID)
    renderTitles(layout, area, &buffer)
    let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
    guard !context.rows.isEmpty else {
      buffer.write(
        emptyMessage, x: body.x + 1, y: body.y, maxWidth: body.width - 1, style: context.theme.muted
      )
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
    if context.state.info == nil { return "waiting for the engine's first snapshot" }
    if let loading = context.state.info?.assetsLoading {
      return HeaderWidget.loadingNote(loading, context.glyphs)
    }
    if context.state.assets.isEmpty { return "no assets configured" }
    return "no asset matches the filter"
  }

  private func renderTitles(_ layout: ColumnLayout, _ area: Rect, _ buffer: inout ScreenBuffer) {
    let sort = context.state.sort
    for (entry, x) in zip(layout.columns, layout.origins) {
      var title = entry.column.title
      if sort.column != .config, entry.column.sortColumn == sort.column {
        title += sort.reversed ? context.glyphs.descending : context.glyphs.ascending
      }
      let text =
        entry.column.isRightAligned
        ? TextFit.padLeft(title, to: entry.width, ellipsis: context.glyphs.ellipsis)
        : context.cut(title, entry.width)
      buffer.write(
        text, x: area.x + x, y: area.y, maxWidth: entry.width, style: context.theme.title)
    }
  }

  private func renderRow(
    _ index: Int, _ layout: ColumnLayout, y: Int, width: Int, _ buffer: inout ScreenBuffer
  ) {
    let asset = context.rows[index]
    let changed = context.state.isRecentlyChanged(asset.id, at: context.now)
    let rowStyle = CellStyle(bold: changed)
    if changed {
      buffer.write(String(context.glyphs.changed), x: 0, y: y, style: context.theme.strong)
    }
    let cells = TableCellText(context: context)
    for (entry, x) in zip(layout.columns, layout.origins) {
      let content = cells.cell(entry.column, asset, width: entry.width)
      let text =
        entry.column.isRightAligned
        ? TextFit.padLeft(content.text, to: entry.width, ellipsis: context.glyphs.ellipsis)
        : context.cut(content.text, entry.width)
      var style = content.style ?? rowStyle
      style.bold = style.bold || changed
      buffer.write(text, x: x, y: y, maxWidth: entry.width, style: style)
    }
    if index == context.selectedIndex {
      buffer.restyle(Rect(x: 0, y: y, width: width, height: 1)) { $0.reverse = true }
    }
  }
}
