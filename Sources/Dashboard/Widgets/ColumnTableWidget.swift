import TerminalCore

/// A column that ``ColumnTableWidget`` can title and align.
protocol TitledColumn: FittableColumn {
  /// The title in the header row.
  var title: String { get }
  /// Whether the values are right-aligned (numbers).
  var isRightAligned: Bool { get }
}

/// A table of rows under column titles, generic over its columns: the columns that fit (by
/// ``FittedColumns``), the visible slice of rows around the selection, the selection in reverse
/// video and an optional mark in the gutter. The asset table and the fleet table both draw
/// through it; what goes in a cell is theirs.
struct ColumnTableWidget<Column: TitledColumn>: Widget {
  /// How one row looks apart from its cells.
  struct RowLook {
    /// A mark in the gutter left of the first column (a changed or a stuck row).
    var gutter: (text: String, style: CellStyle)?
    /// Whether the whole row is bold (cells with a style of their own included).
    var bold = false
  }

  /// Every column, in display order; the narrow terminal drops them by priority.
  let columns: [Column]
  /// The display width of the longest id, for the columns that size by it.
  let longestID: Int
  /// How many rows there are.
  let rowCount: Int
  /// The selected row, if any.
  let selectedIndex: Int?
  /// The first row the state would like shown (kept unless the selection needs another).
  let scrollOffset: Int
  /// What the body says when there are no rows.
  let emptyMessage: String
  let glyphs: Glyphs
  let theme: Theme
  /// The sort marker after a column's title (`▲`, `▼`), nil for the columns not sorted by.
  let sortMarker: (Column) -> String?
  /// The look of row `index`.
  let look: (_ index: Int) -> RowLook
  /// The text of a cell and its style (nil: the row's plain style), for a column `width` wide.
  let cell: (_ column: Column, _ index: Int, _ width: Int) -> (text: String, style: CellStyle?)

  func render(in area: Rect, into buffer: inout ScreenBuffer) {
    guard !area.isEmpty else { return }
    let layout = FittedColumns(columns, width: area.width, longestID: longestID)
    renderTitles(layout, area, &buffer)
    let body = Rect(x: area.x, y: area.y + 1, width: area.width, height: area.height - 1)
    guard rowCount > 0 else {
      buffer.write(
        emptyMessage, x: body.x + 1, y: body.y, maxWidth: body.width - 1, style: theme.muted)
      return
    }
    let offset = ScrollPosition.offset(
      current: scrollOffset, selected: selectedIndex, rowCount: rowCount, viewport: body.height)
    let placed = Array(zip(layout.columns, layout.origins))  // once, not once a row
    for (line, index) in (offset..<min(rowCount, offset + body.height)).enumerated() {
      renderRow(index, placed, y: body.y + line, width: area.width, &buffer)
    }
  }

  private func fit(_ text: String, _ column: Column, _ width: Int) -> String {
    column.isRightAligned
      ? TextFit.padLeft(text, to: width, ellipsis: glyphs.ellipsis)
      : TextFit.truncate(text, to: width, ellipsis: glyphs.ellipsis)
  }

  private func renderTitles(
    _ layout: FittedColumns<Column>, _ area: Rect, _ buffer: inout ScreenBuffer
  ) {
    for (entry, x) in zip(layout.columns, layout.origins) {
      let title = entry.column.title + (sortMarker(entry.column) ?? "")
      buffer.write(
        fit(title, entry.column, entry.width), x: area.x + x, y: area.y, maxWidth: entry.width,
        style: theme.title)
    }
  }

  private func renderRow(
    _ index: Int, _ placed: [((column: Column, width: Int), Int)], y: Int, width: Int,
    _ buffer: inout ScreenBuffer
  ) {
    let look = self.look(index)
    if let gutter = look.gutter {
      buffer.write(gutter.text, x: 0, y: y, style: gutter.style)
    }
    for (entry, x) in placed {
      let content = cell(entry.column, index, entry.width)
      var style = content.style ?? CellStyle(bold: look.bold)
      style.bold = style.bold || look.bold
      buffer.write(
        fit(content.text, entry.column, entry.width), x: x, y: y, maxWidth: entry.width,
        style: style)
    }
    if index == selectedIndex {
      buffer.restyle(Rect(x: 0, y: y, width: width, height: 1)) { $0.reverse = true }
    }
  }
}
