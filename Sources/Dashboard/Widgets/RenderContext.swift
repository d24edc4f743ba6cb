import AssetModel
import Foundation
import TerminalCore

/// What every widget needs to draw one frame of a view: the state, the time, the glyphs, the
/// styles, and the table rows with the selected one. One context serves the asset dashboard
/// (`RenderContext<DashboardState>`) and the fleet view (`RenderContext<FleetState>`); what only
/// one of them needs lives in an extension for its state.
struct RenderContext<State: RenderedState> {
  let state: State
  let now: Date
  let glyphs: Glyphs
  let theme: Theme
  /// The table rows (filtered and sorted) at `now`.
  let rows: State.Rows
  /// The selected row's index in `rows`.
  let selectedIndex: Int?

  init(state: State, now: Date) {
    self.state = state
    self.now = now
    glyphs = Glyphs.forOptions(state.options)
    theme = Theme(options: state.options)
    rows = state.tableRows(at: now)
    selectedIndex = state.selectedIndex(in: rows)
  }

  /// `text` cut to `width` columns with this terminal's ellipsis.
  func cut(_ text: String, _ width: Int) -> String {
    TextFit.truncate(text, to: width, ellipsis: glyphs.ellipsis)
  }

  /// `text` cut and padded to exactly `width` columns.
  func pad(_ text: String, _ width: Int) -> String {
    TextFit.pad(text, to: width, ellipsis: glyphs.ellipsis)
  }

  /// A horizontal rule with an optional title: `── events ─────`.
  func rule(_ title: String, width: Int) -> String {
    let h = String(glyphs.horizontal)
    let head = title.isEmpty ? "" : h + h + " " + title + " "
    let rest = max(0, width - DisplayWidth.of(head))
    return cut(head + String(repeating: h, count: rest), width)
  }
}
